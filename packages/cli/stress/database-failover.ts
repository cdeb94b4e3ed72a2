/**
 * Database failovers under load: a primary and a synchronous standby, four writers appending to
 * sessions of their own through a multi-host connection string, the primary SIGKILLed mid-append
 * and the standby promoted; then every acknowledged append must be on the new primary, once.
 */
import { PostgresSessionLog } from '@acp-kit/history-postgres';
import type { LogEntry } from '@acp-kit/sdk/adapter';
import { startReplicationPair } from '@acp-kit/history-postgres/testing';

/** What {@link repeatedFailovers} counted over every round. */
export interface FailoverReport {
  readonly rounds: number;
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

async function oneFailover(): Promise<{ acknowledged: number; lost: number; duplicated: number }> {
  const pair = await startReplicationPair({ synchronous: true });
  const logs: PostgresSessionLog[] = [];
  try {
    const options = { maxConnections: 4, writeBehind: false, connectTimeoutMs: 3000 } as const;
    const log = await PostgresSessionLog.open(pair.multiHostUrl, options);
    logs.push(log);
    const sessions = ['w0', 'w1', 'w2', 'w3'];
    for (const sessionId of sessions) await log.createSession({ sessionId, cwd: '/w' });
    const acked = new Map<string, string[]>(sessions.map((id) => [id, []]));
    let killed = false;
    const writers = sessions.map(async (sessionId) => {
      for (let i = 0; !killed; i++) {
        try {
          await log.append(sessionId, [{ update: chunk(`${sessionId}-${i}`) }]);
          if (!killed) acked.get(sessionId)?.push(`${sessionId}-${i}`);
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
    const reader = await PostgresSessionLog.open(pair.multiHostUrl, options);
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
    await pair.stop();
  }
}

/** Runs `rounds` failovers with synchronous replication and adds up what was acknowledged and lost. */
export async function repeatedFailovers(rounds: number): Promise<FailoverReport> {
  let acknowledged = 0;
  let lost = 0;
  let duplicated = 0;
  for (let round = 0; round < rounds; round++) {
    const result = await oneFailover();
    acknowledged += result.acknowledged;
    lost += result.lost;
    duplicated += result.duplicated;
  }
  return { rounds, acknowledged, lost, duplicated };
}
