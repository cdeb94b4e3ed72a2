import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import type { ThrowawayPostgres } from '@acp-kit/history-postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectWebSocket } from '@acp-kit/sdk';
import { BIN, clientOver, idleCount, requireBuild, scenarioPostgres } from '../harness.js';

/** The server's postmaster and every process it started (its backends and workers). */
function serverProcesses(postmaster: number): number[] {
  const children = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        // Field 4 of /proc/PID/stat is the parent's PID (after the parenthesised command name).
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

const signalAll = (pids: number[], signal: NodeJS.Signals) => {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Exited meanwhile.
    }
  }
};

describe('acp-kit agent --listen --history postgres://… stopped while its database is frozen', () => {
  let server: ThrowawayPostgres;
  let frozen: number[] = [];
  beforeAll(async () => {
    requireBuild();
    server = await scenarioPostgres();
  }, 180_000);
  afterAll(async () => {
    signalAll(frozen, 'SIGCONT');
    await server?.stop();
  });

  it('exits on SIGTERM within its bounded shutdown, saying which step it gave up and that the leases expire', async () => {
    const child = spawn(
      process.execPath,
      [BIN, 'agent', '--listen', '127.0.0.1:0', '--history', server.url, '--lease-ms', '3000'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const check = () => {
          const match = /listening on (wss?:\/\/\S+)\n/.exec(stderr);
          if (match && stderr.includes('token file: ')) resolve(match[1]!);
        };
        child.stderr.on('data', check);
        void exited.then(() => reject(new Error(`agent exited before listening: ${stderr}`)));
      });
      const token = readFileSync(/token file: (\S+)/.exec(stderr)![1]!, 'utf8').trim();
      const alice = await clientOver(await connectWebSocket(url, { token }));
      const sessionId = await alice.client.newSession('/work');
      await alice.client.prompt(sessionId, [{ type: 'text', text: '/note held under a lease' }]);
      await idleCount(alice, 1);
      alice.connection.close();

      // Every server process stops answering (SIGSTOP): connections stay open, nothing replies.
      frozen = serverProcesses(server.pid);
      signalAll(frozen, 'SIGSTOP');
      const started = Date.now();
      child.kill('SIGTERM');
      const [code] = await exited;
      const took = Date.now() - started;

      expect(stderr).toMatch(
        /closing the session history did not finish within 10000 ms; going on without it \(leases not released expire after their lease time\)/,
      );
      // The connections to the frozen server still hold the process open: named, then cut.
      expect(stderr).toMatch(
        /still held open 5000 ms after stopping \([^)]*(PipeWrap|TCPSocketWrap)[^)]*\); exiting/,
      );
      expect(code).toBe(1);
      // 10 s for the history, at most 5 s more for whatever it left open, and slack for a busy machine.
      expect(took).toBeGreaterThanOrEqual(10_000);
      expect(took).toBeLessThan(30_000);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      signalAll(frozen, 'SIGCONT');
    }
  }, 90_000);
});
