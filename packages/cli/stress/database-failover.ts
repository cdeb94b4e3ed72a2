/**
 * Database failovers under load: a primary and a synchronous standby, four writers appending to
 * sessions of their own through a multi-host connection string, the primary SIGKILLed mid-append
 * and the standby promoted; then every acknowledged append must be on the new primary, once.
 * Every other round goes through one session-pooling pgbouncer per server (when pgbouncer is
 * installed), as the CLI's failover scenario does.
 */
import { PostgresSessionLog } from '@acp-kit/history-postgres';
import {
  hasPgBouncer,
  type PgBouncer,
  startPgBouncer,
  startReplicationPair,
} from '@acp-kit/history-postgres/testing';
import type { LogEntry } from '@acp-kit/sdk/adapter';

/** What {@link repeatedFailovers} counted over every round. */
export interface FailoverReport {
  readonly rounds: number;
  /** Of {@link rounds}, those run through pgbouncer. */
  readonly throughPgBouncer: number;
  readonly acknowledged: number;
  readonly lost: number;
  readonly duplicated: number;
}

const chunk = (text: string) =>
  ({
    sessionUpdate: 'agent_message_chunk',
    messageId: 'm',
    content: { type: 'text', text },
  }) as LogEntry['update'];

async function oneFailover(
  throughPgBouncer: boolean,
): Promise<{ acknowledged: number; lost: number; duplicated: number }> {
  const pair = await startReplicationPair({ synchronous: true });
  const logs: PostgresSessionLog[] = [];
  const bouncers: PgBouncer[] = [];
  try {
    let url = pair.multiHostUrl;
    if (throughPgBouncer) {
      for (const server of [pair.primary, pair.standby]) {
        bouncers.push(await startPgBouncer({ host: '127.0.0.1', port: server.port }, 'session'));
      }
      const hosts = bouncers.map((bouncer) => `127.0.0.1:${bouncer.port}`).join(',');
      url = `postgres://acp@${hosts}/postgres?target_session_attrs=read-write`;
    }
    const options = { maxConnections: 4, writeBehind: false, connectTimeoutMs: 3000 } as const;
    const log = await PostgresSessionLog.open(url, options);
    logs.push(log);
    const sessions = ['w0', 'w1', 'w2', 'w3'];
    for (const sessionId of sessions) await log.createSession({ sessionId, cwd: '/w' });
    const acked = new Map<string, string[]>(sessions.map((id) => [id, []]));
    let killed = false;
    const writers = sessions.map(async (sessionId) => {
      for (let i = 0; !killed; i++) {
        try {
          await log.append(sessionId, [{ update: chunk(`${sessionId}-${i}`) }]);
          // Acknowledged, also when it returns while the kill is under way: it must survive.
          acked.get(sessionId)?.push(`${sessionId}-${i}`);
        } catch {
          return; // outcome unknown: not acknowledged, not counted
        }
      }
    });
    const deadline = Date.now() + 60_000;
    while ([...acked.values()].some((texts) => texts.length < 30) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    killed = true;
    await pair.primary.kill();
    await Promise.all(writers);
    pair.promote();
    const reader = await PostgresSessionLog.open(url, options);
    logs.push(reader);
    let acknowledged = 0;
    let lost = 0;
    let duplicated = 0;
    for (const sessionId of sessions) {
      const stored = (await reader.read(sessionId, { limit: 100_000 })).entries
        .map((entry) => (entry.update as { content?: { text?: string } }).content?.text)
        .filter((text): text is string => text !== undefined);
      duplicated += stored.length - new Set(stored).size;
      const present = new Set(stored);
      const mine = acked.get(sessionId) ?? [];
      acknowledged += mine.length;
      lost += mine.filter((text) => !present.has(text)).length;
    }
    return { acknowledged, lost, duplicated };
  } finally {
    for (const log of logs) await log.close().catch(() => undefined);
    for (const bouncer of bouncers) await bouncer.stop().catch(() => undefined);
    await pair.stop();
  }
}

/**
 * Runs `rounds` failovers with synchronous replication, every other one through pgbouncer when it
 * is installed, and adds up what was acknowledged and lost.
 */
export async function repeatedFailovers(rounds: number): Promise<FailoverReport> {
  let acknowledged = 0;
  let lost = 0;
  let duplicated = 0;
  let throughPgBouncer = 0;
  for (let round = 0; round < rounds; round++) {
    const pooled = round % 2 === 1 && hasPgBouncer();
    if (pooled) throughPgBouncer++;
    const result = await oneFailover(pooled);
    acknowledged += result.acknowledged;
    lost += result.lost;
    duplicated += result.duplicated;
  }
  return { rounds, throughPgBouncer, acknowledged, lost, duplicated };
}
