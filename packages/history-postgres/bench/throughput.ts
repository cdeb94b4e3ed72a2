/**
 * Retained updates per second on the same stream into the SQLite and PostgreSQL session logs (what
 * an agent writes through): each turn appends a user message, opens an agent message and streams
 * CHUNKS chunks into it, one `append` per update, as an agent reports them. Two producer styles:
 * - awaited: each append is awaited before the next is made (as the SDK agent does): one session
 *   alone costs one round trip per update; several sessions at once share calls (group commit);
 * - pipelined: a turn's appends are made without waiting for each (a producer streaming chunks);
 *   the turn waits for all of them at its end. The PostgreSQL log writes the appends queued behind
 *   one in flight as one batch (one call, one multi-row INSERT, one NOTIFY).
 * Both logs run in this process; CPU time of this process and of the PostgreSQL server is printed
 * beside the wall time.
 * Run one session at a time (an agent's single turn) and SESSIONS sessions at once (a busy agent);
 * SQLite is the baseline, on the same stream.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionLog } from '@acp-kit/sdk';
import type { NewLogEntry, SeqRange } from '@acp-kit/sdk/adapter';
import { SqliteSessionLog } from '@acp-kit/history-sqlite';
import { PostgresSessionLog } from '../src/index.js';
import { cpuSpent, fixed, load, ownCpuMs, serverCpuMs } from './stats.js';
import { CHUNKS } from './stream-shape.js';
type Update = NewLogEntry['update'];
export type ProducerStyle = 'awaited' | 'pipelined';

function turnEntries(t: number): NewLogEntry[] {
  const entries: NewLogEntry[] = [
    {
      update: {
        sessionUpdate: 'user_message',
        messageId: `u${t}`,
        content: [{ type: 'text', text: `prompt ${t}` }],
      } as unknown as Update,
      claim: { kind: 'user_message', messageId: `u${t}` },
    },
    {
      update: { sessionUpdate: 'agent_message', messageId: `a${t}`, content: [] } as unknown as Update,
      claim: { kind: 'agent_message', messageId: `a${t}` },
    },
  ];
  for (let c = 0; c < CHUNKS; c++) {
    entries.push({
      update: {
        sessionUpdate: 'agent_message_chunk',
        messageId: `a${t}`,
        content: { type: 'text', text: `chunk ${c} of a streamed answer, about this long. ` },
      } as unknown as Update,
    });
  }
  return entries;
}

async function stream(
  log: SessionLog,
  sessionId: string,
  turns: number,
  style: ProducerStyle,
): Promise<number> {
  let updates = 0;
  for (let t = 0; t < turns; t++) {
    const entries = turnEntries(t);
    if (style === 'awaited') {
      for (const entry of entries) await log.append(sessionId, [entry]);
    } else {
      const appended: Promise<SeqRange>[] = [];
      for (const entry of entries) appended.push(log.append(sessionId, [entry]));
      await Promise.all(appended);
    }
    updates += entries.length;
  }
  return updates;
}

/** One measured run: rate, wall time, CPU time of this process and of the PostgreSQL server. */
export interface Measured {
  readonly perSecond: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly serverCpuMs: number | undefined;
  readonly load: string;
}

async function rate(
  log: SessionLog,
  sessions: number,
  turns: number,
  style: ProducerStyle,
  postmasterPid?: number,
): Promise<Measured> {
  const prefix = `r${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}_${sessions}`;
  for (let s = 0; s < sessions; s++) await log.createSession({ sessionId: `${prefix}_${s}`, cwd: '/bench' });
  const serverBefore = serverCpuMs(postmasterPid);
  const cpuBefore = ownCpuMs();
  const started = performance.now();
  const counts = await Promise.all(
    Array.from({ length: sessions }, (_, s) => stream(log, `${prefix}_${s}`, turns, style)),
  );
  const wallMs = performance.now() - started;
  const serverAfter = serverCpuMs(postmasterPid);
  return {
    perSecond: counts.reduce((a, b) => a + b, 0) / (wallMs / 1000),
    wallMs,
    cpuMs: ownCpuMs() - cpuBefore,
    serverCpuMs:
      serverBefore === undefined || serverAfter === undefined ? undefined : serverAfter - serverBefore,
    load: load(),
  };
}

export interface ThroughputRow {
  readonly sessions: number;
  readonly style: ProducerStyle;
  readonly sqlite: Measured;
  readonly postgres: Measured;
}

export async function throughput(
  url: string,
  shapes: readonly { sessions: number; turns: number }[],
  postmasterPid?: number,
  styles: readonly ProducerStyle[] = ['awaited', 'pipelined'],
): Promise<ThroughputRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'acp-bench-pg-'));
  const sqlite = SqliteSessionLog.open(join(dir, 'history.sqlite'));
  const postgres = await PostgresSessionLog.open(url, { schema: `bench_tp_${Date.now().toString(36)}` });
  const rows: ThroughputRow[] = [];
  try {
    // Warm-up: JIT, statement caches, pool connections.
    for (const style of styles) {
      await rate(sqlite, 4, 2, style);
      await rate(postgres, 4, 2, style);
    }
    for (const style of styles) {
      for (const { sessions, turns } of shapes) {
        rows.push({
          sessions,
          style,
          sqlite: await rate(sqlite, sessions, turns, style),
          postgres: await rate(postgres, sessions, turns, style, postmasterPid),
        });
      }
    }
  } finally {
    await sqlite.close();
    await postgres.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

export function printThroughput(rows: readonly ThroughputRow[], title?: string): void {
  console.log(
    title ??
      `Retained updates per second into the session log, same stream (turn = user message + agent message + ${CHUNKS} chunks, one append per update):`,
  );
  for (const row of rows) {
    const ratio = row.postgres.perSecond / row.sqlite.perSecond;
    console.log(
      `  ${row.style.padEnd(9)} ${String(row.sessions).padStart(3)} session(s) at once: SQLite ${fixed(row.sqlite.perSecond, 0)}/s  PostgreSQL ${fixed(row.postgres.perSecond, 0)}/s  ratio PG/SQLite ${fixed(ratio)}×  (≥ 0.5×: ${ratio >= 0.5 ? 'yes' : 'no'}${row.style === 'awaited' && row.sessions === 1 ? ' — one round trip per append, the latency floor' : ''})`,
    );
    for (const [name, m] of [
      ['SQLite', row.sqlite],
      ['PostgreSQL', row.postgres],
    ] as const) {
      console.log(
        `      ${name.padEnd(10)} wall ${fixed(m.wallMs / 1000)} s  CPU: this process ${cpuSpent(0, m.cpuMs)}${name === 'PostgreSQL' ? `  server ${cpuSpent(0, m.serverCpuMs)}` : ''}  load ${m.load}`,
      );
    }
  }
}
