import type { LogEntry } from '@acp-kit/sdk/adapter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresSessionLog } from '../src/index.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../src/testing/index.js';

type Update = LogEntry['update'];
const chunk = (text: string) =>
  ({ sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: 'text', text } }) as Update;

/** Resolves when `check` holds, polling; throws after `ms`, saying what it waited for. */
async function until(check: () => boolean, what: () => string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

// A server of its own: these tests stop it, which the other test files' shared server must not see.
describe('PostgresSessionLog followers when the database goes away', () => {
  let server: ThrowawayPostgres;
  const logs: PostgresSessionLog[] = [];
  beforeAll(async () => {
    server = await startThrowawayPostgres();
  });
  afterAll(async () => {
    for (const log of logs.splice(0)) await log.close().catch(() => undefined);
    await server?.stop();
  });

  it('follows a session whose first LISTEN could not be set up: once the database is back it gets the backlog and every later append', async () => {
    const url = await server.createDatabase('first_listen');
    const a = await PostgresSessionLog.open(url, { maxConnections: 4 });
    logs.push(a);
    const b = await PostgresSessionLog.open(url, { maxConnections: 4 });
    logs.push(b);
    await a.createSession({ sessionId: 's', cwd: '/w' });
    await a.append('s', [{ update: chunk('before') }]);

    // B starts following while the database is away, so the LISTEN connection its first read
    // waits for cannot be set up (as when the database goes away while a replica that has just
    // loaded a session is still connecting to listen). Its reads fail meanwhile and are tried again.
    const seen: LogEntry[] = [];
    let failure: unknown;
    const subscription = b.subscribe('s', 0, {
      entries: (batch) => void seen.push(...batch),
      error: (error) => {
        failure = error;
      },
    });
    try {
      await server.restart({
        whileDown: () => new Promise((resolve) => setTimeout(resolve, 1500)),
      });
      await a.append('s', [{ update: chunk('after') }]);
      const seqs = () => seen.map((entry) => entry.seq);
      await until(
        () => seen.length >= 2 || failure !== undefined,
        () => `the backlog and the append after the outage (have seqs ${JSON.stringify(seqs())})`,
      );
      expect(failure).toBeUndefined();
      // Live again: an append is delivered too, once, in order.
      await a.append('s', [{ update: chunk('later') }]);
      await until(
        () => seen.length >= 3,
        () => `the next append (have seqs ${JSON.stringify(seqs())})`,
      );
      expect(seen).toEqual((await a.read('s')).entries);
    } finally {
      subscription.close();
    }
  });
});
