/**
 * `npm run stress` for @acp-kit/cli: faults and limits with real `acp-kit agent` processes at full
 * size. Prints one line per figure and exits non-zero when any invariant breaks. Needs a build
 * (`npx turbo run build --filter=@acp-kit/cli...`); scale with STRESS_SCALE (1 = full).
 */
import { chmodSync, chownSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteHistoryStore } from '@acp-kit/history-sqlite';
import Database from 'better-sqlite3';
import { requireBuild, tempDir } from '../test/harness.js';
import { bridgeIdsAcrossRestarts, cancelRacesThroughV1Bridge, cancelRacesThroughV2Bridge } from './bridge.js';
import {
  agentOnFile,
  type BadFileReport,
  clientLeavesMidTurn,
  corruptFile,
  killMidTurn,
  restartLoop,
} from './faults.js';
import { heapPerIdleSession, manySessions, oversizedThroughStdio, slowClient } from './limits.js';

const scale = Number(process.env.STRESS_SCALE ?? '1');
const MiB = 1024 * 1024;
const broken: string[] = [];
const samples: string[] = [];

function figure(name: string, value: string | number, ok = true): void {
  process.stdout.write(`${ok ? '  ' : '✗ '}${name}: ${value}\n`);
  if (!ok) broken.push(name);
}
const mib = (bytes: number): string => `${(bytes / MiB).toFixed(1)} MiB`;
/** The first line that is not a warning (an old world-readable test file draws one before the error). */
const firstLine = (text: string): string =>
  text
    .trim()
    .split('\n')
    .find((line) => !line.includes('WARNING:')) ?? '';

function badFile(name: string, report: BadFileReport, pattern: RegExp, path: string): void {
  const ok =
    !report.hung && report.exitCode !== 0 && report.stderr.includes(path) && pattern.test(report.stderr);
  figure(
    `history file ${name}`,
    report.hung
      ? 'HUNG (killed after 20 s)'
      : `exit ${report.exitCode}: ${firstLine(report.stderr).replace(path, '<file>')}`,
    ok,
  );
}

async function main(): Promise<void> {
  requireBuild();
  process.stdout.write(
    `cli stress (scale ${scale}, gc ${typeof globalThis.gc === 'function' ? 'on' : 'off'})\n`,
  );
  const temp = tempDir();
  try {
    // Measured first, before other runs leave garbage in this process.
    const perSessionHeap = await heapPerIdleSession(Math.max(100, Math.round(2000 * scale)));
    const sessions = await manySessions(Math.max(100, Math.round(1000 * scale)));
    figure(
      `concurrent sessions on one agent process, every turn complete`,
      `${sessions.completed}/${sessions.sessions}`,
      sessions.completed === sessions.sessions,
    );
    figure(
      'memory per idle session (agent RSS growth / sessions, no forced GC)',
      `${(sessions.bytesPerIdleSession / 1024).toFixed(1)} KiB`,
    );
    figure(
      'memory per idle session (reference agent heap, in process, after GC)',
      `${(perSessionHeap / 1024).toFixed(1)} KiB`,
    );

    const kill = await killMidTurn();
    const killOk =
      kill.pendingError?.code === -32099 &&
      kill.connection === 'disconnected' &&
      kill.state !== 'idle' &&
      kill.pendingOrigin === 'local-unknown';
    figure(
      'agent killed mid-turn',
      `pending prompt rejected ${kill.pendingError?.code} (${kill.pendingError?.message}); session ${kill.connection}, state ${kill.state}; queued prompt ${kill.pendingOrigin}`,
      killOk,
    );

    const restarts = await restartLoop(temp.dir, Math.max(3, Math.round(30 * scale)));
    samples.push(...restarts.samples);
    figure(
      'restarts survived',
      `${restarts.survived}/${restarts.restarts} (half of them SIGKILL mid-stream)`,
      restarts.survived === restarts.restarts,
    );
    figure('messages checked after restarts (every seen message, every restart)', restarts.checked);
    figure('messages lost', restarts.lost, restarts.lost === 0);
    figure('messages duplicated', restarts.duplicated, restarts.duplicated === 0);
    figure('messages changed by replay', restarts.changed, restarts.changed === 0);
    figure('retained but unseen before a crash (allowed)', restarts.unseenRetained);

    const leave = await clientLeavesMidTurn();
    figure(
      'WebSocket client disconnecting mid-turn',
      `watcher got the whole reply: ${leave.watcherGotWholeReply ? 'yes' : 'no'}, stop reason ${leave.stopReason}`,
      leave.watcherGotWholeReply && leave.stopReason === 'end_turn',
    );

    const corrupt = join(temp.dir, 'corrupt.db');
    corruptFile(corrupt);
    badFile('corrupt', await agentOnFile(corrupt), /damaged or is not a SQLite database/, corrupt);
    const locked = join(temp.dir, 'locked.db');
    (await SqliteHistoryStore.open(locked)).close();
    const holder = new Database(locked);
    holder.pragma('locking_mode = EXCLUSIVE');
    holder.exec('BEGIN EXCLUSIVE');
    badFile('locked by another process', await agentOnFile(locked), /lock/, locked);
    holder.close();
    if (process.getuid?.() === 0) {
      chmodSync(temp.dir, 0o777);
      const readOnly = join(temp.dir, 'readonly.db');
      copyFileSync(locked, readOnly);
      chownSync(readOnly, 0, 0);
      chmodSync(readOnly, 0o444);
      badFile(
        'read-only (agent run as nobody)',
        await agentOnFile(readOnly, { uid: 65534 }),
        /cannot be written/,
        readOnly,
      );
    } else {
      figure('history file read-only', 'skipped (needs root to run the agent as another user)');
    }

    const oversized = await oversizedThroughStdio(2);
    const oversizedOk = oversized.error?.code === -32600 && oversized.answeredAfter;
    figure(
      'oversized line on stdio (2× the 8 MiB limit) answered -32600, next request served',
      oversizedOk ? 'yes' : 'no',
      oversizedOk,
    );
    figure(
      'agent peak RSS growth while receiving it',
      `${mib(oversized.peakGrowthBytes)} (line ${mib(oversized.lineBytes)}; includes uncollected garbage)`,
      oversized.peakGrowthBytes < 2 * oversized.lineBytes,
    );

    const slow = await slowClient(Math.round(20_000 * scale), 2000);
    figure(
      'slow client (stopped reading 2 s mid-stream) got every chunk after resuming',
      `${slow.nothingLost ? 'yes' : 'no'} (${slow.chunks} chunks)`,
      slow.nothingLost,
    );
    figure(
      'agent RSS growth while the client did not read',
      mib(slow.stalledGrowthBytes),
      slow.stalledGrowthBytes < 64 * MiB,
    );

    // The bridges: message IDs across restarts and replays, and cancels racing prompts.
    for (const [label, env] of [
      ['no echo, IDs only on load', { V1_RECORD_IDS: '1' }],
      ['plain echo', { V1_ECHO: 'plain' }],
      ['echo with v1 IDs', { V1_ECHO: 'ids' }],
    ] as const) {
      const ids = await bridgeIdsAcrossRestarts(temp.dir, env, Math.max(4, Math.round(12 * scale)));
      samples.push(...ids.samples);
      figure(
        `bridge --serve v2 --history, v1 agent with ${label}: replays equal to what clients saw`,
        `${ids.replays - ids.differing}/${ids.replays} (${ids.restarts} restarts, half SIGKILL; ${ids.checked} messages compared)`,
        ids.differing === 0,
      );
      figure(`bridge --serve v2, ${label}: IDs issued twice`, ids.reissued, ids.reissued === 0);
    }
    const v1Races = await cancelRacesThroughV1Bridge(Math.max(9, Math.round(60 * scale)));
    samples.push(...v1Races.samples);
    figure(
      'bridge --serve v1: prompts cancelled at once / after a tick / mid-stream that ended cancelled',
      `${v1Races.cancelled}/${v1Races.rounds}; uncancelled prompts after them ended end_turn: ${v1Races.clean}/${Math.floor(v1Races.rounds / 3)}`,
      v1Races.cancelled === v1Races.rounds && v1Races.clean === Math.floor(v1Races.rounds / 3),
    );
    const v2Races = await cancelRacesThroughV2Bridge(Math.max(9, Math.round(60 * scale)));
    samples.push(...v2Races.samples);
    figure(
      'bridge --serve v2: prompts cancelled at once that were refused -32800 or ended cancelled',
      `${v2Races.cancelled}/${v2Races.rounds}; uncancelled prompts after them ended end_turn: ${v2Races.clean}/${Math.floor(v2Races.rounds / 3)}`,
      v2Races.cancelled === v2Races.rounds && v2Races.clean === Math.floor(v2Races.rounds / 3),
    );
  } finally {
    temp.cleanup();
  }
  if (broken.length > 0) {
    process.stdout.write(`\nINVARIANTS BROKEN: ${broken.join('; ')}\n`);
    for (const sample of samples.slice(0, 12)) process.stdout.write(`  - ${sample}\n`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`stress run failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
