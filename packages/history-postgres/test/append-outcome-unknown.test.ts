/**
 * Appends written together (group commit) whose call committed, but whose answer never came back
 * (the connection died in between): nothing may be written a second time. Before, the appender
 * took any failure of a group for a refusal and wrote each append again on its own, so entries
 * that were already in the log were appended twice.
 */
import type { NewLogEntry } from '@acp-kit/sdk/adapter';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PostgresSessionLog } from '../src/index.js';
import { freshSchema, postgresUrl } from './helpers.js';

type Update = NewLogEntry['update'];
const state = (value: string): NewLogEntry => ({
  update: { sessionUpdate: 'state_update', state: value } as unknown as Update,
  retain: true,
});
const opening = (id: string): NewLogEntry => ({
  update: { sessionUpdate: 'agent_message', messageId: id, content: [] } as unknown as Update,
  claim: { kind: 'agent_message', messageId: id },
});

/**
 * Makes the next append statement run (and commit) as usual, then fail as if the connection had
 * died before its answer arrived. Counts the append statements run.
 */
function loseNextAnswer() {
  const seen = { statements: 0, lost: 0 };
  let armed = true;
  const query = pg.Pool.prototype.query;
  vi.spyOn(pg.Pool.prototype, 'query').mockImplementation(function (this: pg.Pool, ...args: unknown[]) {
    const config = args[0] as { text?: string } | string;
    const text = typeof config === 'string' ? config : (config.text ?? '');
    const appending = text.includes('INSERT INTO') || text.includes('log_write(');
    if (appending) seen.statements++;
    const result = (query as (...a: unknown[]) => Promise<unknown>).apply(this, args);
    if (!appending || !armed) return result as never;
    armed = false;
    return result.then(() => {
      seen.lost++;
      throw new Error('Connection terminated unexpectedly');
    }) as never;
  });
  return seen;
}

describe('PostgresSessionLog: a group of appends whose answer was lost after it committed', () => {
  const closing: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const item of closing.splice(0)) await item.close();
  });
  const open = async (sessions: readonly string[]) => {
    const log = await PostgresSessionLog.open(postgresUrl(), {
      schema: freshSchema('unknown'),
      maxConnections: 4,
    });
    closing.push(log);
    for (const sessionId of sessions) await log.createSession({ sessionId, cwd: '/w' });
    return log;
  };
  const held = async (log: PostgresSessionLog, sessionId: string) =>
    (await log.read(sessionId, { limit: 100 })).entries.map((entry) => {
      const update = entry.update as { state?: string; messageId?: string };
      return update.state ?? update.messageId;
    });

  it('of one session: every append fails with `io`, and the log holds each entry once, not again', async () => {
    const log = await open(['s1']);
    const seen = loseNextAnswer();
    // Made in one turn: written by one call.
    const outcomes = await Promise.allSettled([
      log.append('s1', [state('running')]),
      log.append('s1', [state('requires_action')]),
      log.append('s1', [state('idle')]),
    ]);
    expect(seen.lost).toBe(1);
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({ status: 'rejected', reason: { code: 'io' } });
    }
    expect(seen.statements).toBe(1);
    expect(await held(log, 's1')).toEqual(['running', 'requires_action', 'idle']);
    // The log goes on from there.
    await expect(log.append('s1', [state('running')])).resolves.toEqual({ first: 4, last: 4 });
  });

  it('of several sessions (one log_write call, claims included): nothing is written twice', async () => {
    const log = await open(['a', 'b']);
    const seen = loseNextAnswer();
    const outcomes = await Promise.allSettled([
      log.append('a', [opening('m_a')]),
      log.append('b', [opening('m_b')]),
      log.append('b', [state('idle')]),
    ]);
    expect(seen.lost).toBe(1);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(seen.statements).toBe(1);
    expect(await held(log, 'a')).toEqual(['m_a']);
    expect(await held(log, 'b')).toEqual(['m_b', 'idle']);
  });

  it('a group the server refused (a claim taken before) is still written append by append: the others get in', async () => {
    const log = await open(['a', 'b']);
    await log.append('a', [opening('m_taken')]);
    const outcomes = await Promise.allSettled([
      log.append('a', [opening('m_taken')]),
      log.append('b', [state('running')]),
      log.append('a', [state('idle')]),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(outcomes[0]).toMatchObject({ reason: { code: 'duplicate_message' } });
    expect(await held(log, 'a')).toEqual(['m_taken', 'idle']);
    expect(await held(log, 'b')).toEqual(['running']);
  });
});
