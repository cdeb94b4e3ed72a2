import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { LogEntry } from '@acp-kit/sdk/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresSessionLog } from '../src/index.js';
import { freshSchema, postgresUrl } from './helpers.js';

const REPLICA = fileURLToPath(new URL('./fixtures/replica.ts', import.meta.url));

interface Replica {
  readonly child: ChildProcess;
  readonly entries: LogEntry[];
  readonly lines: Record<string, unknown>[];
  waitFor(test: (line: Record<string, unknown>) => boolean, what: string): Promise<void>;
}

function startReplica(args: string[]): Replica {
  const child = spawn(process.execPath, ['--import', 'tsx', REPLICA, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const entries: LogEntry[] = [];
  const lines: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  createInterface({ input: child.stdout! }).on('line', (text) => {
    const line = JSON.parse(text) as Record<string, unknown>;
    lines.push(line);
    if (line.entry) entries.push(line.entry as LogEntry);
    for (const wake of waiters.splice(0)) wake();
  });
  return {
    child,
    entries,
    lines,
    async waitFor(test, what) {
      const deadline = Date.now() + 60_000;
      while (!lines.some(test)) {
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for ${what}: ${JSON.stringify(lines.slice(-3))}`);
        if (child.exitCode !== null) throw new Error(`the replica exited (${child.exitCode}) before ${what}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
  };
}

const isIdle = (line: Record<string, unknown>) =>
  (line.entry as LogEntry | undefined)?.update.sessionUpdate === 'state_update' &&
  (line.entry as { update: { state?: string } }).update.state === 'idle';

describe('three replica processes on one PostgreSQL server: the owner is killed mid-turn', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('two followers on the survivors share the turn live, see it end idle with error once the lease lapses, and hold identical transcripts', async () => {
    const schema = freshSchema('failover');
    const setup = await PostgresSessionLog.open(postgresUrl(), { schema, maxConnections: 2 });
    await setup.createSession({ sessionId: 's', cwd: '/w' });
    const args = (name: string, mode: string) => [postgresUrl(), schema, 's', name, mode, '1500'];
    const a = startReplica(args('replica-a', 'owner'));
    children.push(a.child);
    await a.waitFor((line) => line.streaming === true, 'the owner to stream');
    // Clients attach to the two other replicas mid-turn: backlog first, then the turn live.
    const b = startReplica(args('replica-b', 'survivor'));
    const c = startReplica(args('replica-c', 'survivor'));
    children.push(b.child, c.child);
    const attachedAt = (await setup.read('s', { afterSeq: 0, limit: 1 })).lastSeq;
    const live = (line: Record<string, unknown>) =>
      ((line.entry as LogEntry | undefined)?.seq ?? 0) > attachedAt + 20;
    await b.waitFor(live, 'live chunks on B');
    await c.waitFor(live, 'live chunks on C');
    expect(takeoversSoFar(b, c)).toBe(0); // the owner keeps its lease while it renews

    a.child.kill('SIGKILL');
    await once(a.child, 'exit');
    await b.waitFor(isIdle, 'the interrupted turn to end on B');
    await c.waitFor(isIdle, 'the interrupted turn to end on C');

    // Exactly one survivor took the session over, with a new epoch, and ended the turn once.
    const takeovers = [...b.lines, ...c.lines].filter((line) => line.tookOver !== undefined);
    expect(takeovers).toHaveLength(1);
    expect(takeovers[0]).toMatchObject({ tookOver: 2 });

    // Same transcript on both replicas and in the table: 1..N, nothing lost or repeated.
    const stored = await setup.read('s', { limit: 4096 });
    expect(b.entries).toEqual(stored.entries);
    expect(c.entries).toEqual(stored.entries);
    expect(stored.entries.map((e) => e.seq)).toEqual(Array.from({ length: stored.lastSeq }, (_, i) => i + 1));
    const kinds = stored.entries.map((e) => e.update.sessionUpdate);
    expect(kinds.slice(0, 3)).toEqual(['user_message', 'state_update', 'agent_message']);
    expect(kinds.filter((k) => k === 'user_message')).toHaveLength(1);
    const last = stored.entries.at(-1)!.update as {
      state?: string;
      stopReason?: string;
      error?: { code: number };
    };
    expect(last).toMatchObject({ state: 'idle', stopReason: 'error', error: { code: -32603 } });
    expect(stored.entries.filter(isIdleEntry)).toHaveLength(1);

    // A client resuming later, on any replica, replays the same log.
    const resumed: LogEntry[] = [];
    await new Promise<void>((resolve, reject) => {
      const subscription = setup.subscribe('s', 0, {
        entries(batch) {
          resumed.push(...batch);
          if (resumed.length >= stored.entries.length) {
            subscription.close();
            resolve();
          }
        },
        error: reject,
      });
    });
    expect(resumed).toEqual(stored.entries);
    await setup.close();
  });
});

function takeoversSoFar(...replicas: Replica[]): number {
  return replicas.flatMap((r) => r.lines).filter((line) => line.tookOver !== undefined).length;
}

function isIdleEntry(entry: LogEntry): boolean {
  return (
    entry.update.sessionUpdate === 'state_update' && (entry.update as { state?: string }).state === 'idle'
  );
}
