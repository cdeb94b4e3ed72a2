import { readdirSync, readFileSync } from 'node:fs';
import type { ThrowawayPostgres } from '@acp-kit/history-postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clientOverWebSocket,
  idleCount,
  type ListeningAgent,
  listeningAgent,
  requireBuild,
  scenarioPostgres,
} from '../harness.js';

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
  let agent: ListeningAgent | undefined;
  let frozen: number[] = [];
  beforeAll(async () => {
    requireBuild();
    server = await scenarioPostgres();
  }, 180_000);
  afterAll(async () => {
    await agent?.kill();
    signalAll(frozen, 'SIGCONT');
    await server?.stop();
  });

  it('exits on SIGTERM within its bounded shutdown, saying which step it gave up and that the leases expire', async () => {
    agent = await listeningAgent(['--history', server.url, '--lease-ms', '3000']);
    const alice = await clientOverWebSocket(agent.url);
    const sessionId = await alice.client.newSession('/work');
    await alice.client.prompt(sessionId, [{ type: 'text', text: '/note held under a lease' }]);
    await idleCount(alice, 1);
    alice.connection.close();

    // Every server process stops answering (SIGSTOP): connections stay open, nothing replies.
    frozen = serverProcesses(server.pid);
    signalAll(frozen, 'SIGSTOP');
    const started = Date.now();
    const { code } = await agent.terminate();
    const took = Date.now() - started;
    signalAll(frozen, 'SIGCONT');

    const stderr = agent.stderr();
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
  }, 90_000);
});
