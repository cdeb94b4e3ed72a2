/**
 * Retained updates per second on the same stream into SQLite and PostgreSQL history stores: each
 * turn retains a user message, opens an agent message and streams CHUNKS chunks into it (one
 * store write per update, as an agent retains them). Run one session at a time (an agent's single
 * turn) and SESSIONS sessions at once (a busy agent); SQLite is the baseline.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HistoryStore } from '@acp-kit/sdk';
import { SqliteHistoryStore } from '@acp-kit/history-sqlite';
import { PostgresHistoryStore } from '../src/index.js';
import { fixed } from './stats.js';

const CHUNKS = 20;

async function stream(store: HistoryStore, sessionId: string, turns: number): Promise<number> {
  let updates = 0;
  for (let t = 0; t < turns; t++) {
    await store.appendMessage(sessionId, {
      kind: 'user_message',
      messageId: `u${t}`,
      content: [{ type: 'text', text: `prompt ${t}` }] as never,
    });
    await store.appendMessage(sessionId, {
      kind: 'agent_message',
      messageId: `a${t}`,
      content: [],
      via: 'chunks',
    });
    updates += 2;
    for (let c = 0; c < CHUNKS; c++) {
      await store.appendChunk(sessionId, { kind: 'agent_message', messageId: `a${t}` }, {
        type: 'text',
        text: `chunk ${c} of a streamed answer, about this long. `,
      } as never);
      updates++;
    }
  }
  return updates;
}

async function rate(store: HistoryStore, sessions: number, turns: number): Promise<number> {
  const prefix = `r${Date.now().toString(36)}_${sessions}`;
  for (let s = 0; s < sessions; s++)
    await store.createSession({ sessionId: `${prefix}_${s}`, cwd: '/bench' });
  const started = performance.now();
  const counts = await Promise.all(
    Array.from({ length: sessions }, (_, s) => stream(store, `${prefix}_${s}`, turns)),
  );
  const seconds = (performance.now() - started) / 1000;
  return counts.reduce((a, b) => a + b, 0) / seconds;
}

export interface ThroughputRow {
  readonly sessions: number;
  readonly sqlite: number;
  readonly postgres: number;
}

export async function throughput(
  url: string,
  shapes: readonly { sessions: number; turns: number }[],
): Promise<ThroughputRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'acp-bench-pg-'));
  const sqlite = SqliteHistoryStore.open(join(dir, 'history.sqlite'));
  const postgres = await PostgresHistoryStore.open(url, { schema: `bench_tp_${Date.now().toString(36)}` });
  const rows: ThroughputRow[] = [];
  try {
    // Warm-up: JIT, statement caches, pool connections.
    await rate(sqlite, 4, 2);
    await rate(postgres, 4, 2);
    for (const { sessions, turns } of shapes) {
      rows.push({
        sessions,
        sqlite: await rate(sqlite, sessions, turns),
        postgres: await rate(postgres, sessions, turns),
      });
    }
  } finally {
    await sqlite.close();
    await postgres.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

export function printThroughput(rows: readonly ThroughputRow[]): void {
  console.log(
    `Retained updates per second, same stream (turn = user message + agent message + ${CHUNKS} chunks):`,
  );
  for (const row of rows) {
    const ratio = row.postgres / row.sqlite;
    console.log(
      `  ${String(row.sessions).padStart(3)} session(s) at once: SQLite ${fixed(row.sqlite, 0)}/s  PostgreSQL ${fixed(row.postgres, 0)}/s  ratio PG/SQLite ${fixed(ratio)}×  (target ≥ 0.5×: ${ratio >= 0.5 ? 'met' : 'NOT met'})`,
    );
  }
}
