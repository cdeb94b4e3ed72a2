/**
 * The CLI's stress suite, shared by `npm run stress` (full size) and `npm run stress:check`
 * (reduced size): faults and limits with real `acp-kit agent` processes. Its random choices (when a
 * process is killed, which prompts are sent) are drawn from the seed it is given.
 */
import { chmodSync, chownSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteHistoryStore } from '@acp-kit/history-sqlite';
import Database from 'better-sqlite3';
import { tempDir } from '../test/harness.js';
import { bridgeIdsAcrossRestarts, cancelRacesThroughV1Bridge, cancelRacesThroughV2Bridge } from './bridge.js';
import {
  agentOnFile,
  type BadFileReport,
  clientLeavesMidTurn,
  corruptFile,
  killMidTurn,
  restartLoop,
} from './faults.js';
import type { Figures } from './figures.js';
import { repeatedFailovers } from './database-failover.js';
import { hostileStress } from './hostile.js';
import { heapPerIdleSession, manySessions, oversizedThroughStdio, slowClient } from './limits.js';

import { seededRandom } from './random.js';

const MiB = 1024 * 1024;
const mib = (bytes: number): string => `${(bytes / MiB).toFixed(1)} MiB`;
/** The first line that is not a warning (an old world-readable test file draws one before the error). */
const firstLine = (text: string): string =>
  text
    .trim()
    .split('\n')
    .find((line) => !line.includes('WARNING:')) ?? '';

function badFile(f: Figures, name: string, report: BadFileReport, pattern: RegExp, path: string): void {
  const ok =
    !report.hung && report.exitCode !== 0 && report.stderr.includes(path) && pattern.test(report.stderr);
  f.figure(
    `history file ${name}`,
    report.hung
      ? 'HUNG (killed after 20 s)'
      : `exit ${report.exitCode}: ${firstLine(report.stderr).replace(path, '<file>')}`,
    ok,
  );
}

/** Runs every section at `scale` (1 = full) with random choices drawn from `seed`. */
export async function cliStress(f: Figures, scale: number, seed: number): Promise<void> {
  const random = seededRandom(seed);
  const temp = tempDir();
  try {
    // Measured first, before other runs leave garbage in this process.
    const perSessionHeap = await heapPerIdleSession(Math.max(100, Math.round(2000 * scale)));
    const sessions = await manySessions(Math.max(100, Math.round(1000 * scale)));
    f.figure(
      `concurrent sessions on one agent process, every turn complete`,
      `${sessions.completed}/${sessions.sessions}`,
      sessions.completed === sessions.sessions,
    );
    f.figure(
      'memory per idle session (agent RSS growth / sessions, no forced GC)',
      `${(sessions.bytesPerIdleSession / 1024).toFixed(1)} KiB`,
    );
    f.figure(
      'memory per idle session (reference agent heap, in process, after GC)',
      `${(perSessionHeap / 1024).toFixed(1)} KiB`,
    );

    const kill = await killMidTurn();
    const killOk =
      kill.pendingError?.code === -32099 &&
      kill.connection === 'disconnected' &&
      kill.state !== 'idle' &&
      kill.pendingOrigin === 'local-unknown';
    f.figure(
      'agent killed mid-turn',
      `pending prompt rejected ${kill.pendingError?.code} (${kill.pendingError?.message}); session ${kill.connection}, state ${kill.state}; queued prompt ${kill.pendingOrigin}`,
      killOk,
    );

    const restarts = await restartLoop(temp.dir, Math.max(3, Math.round(30 * scale)), random);
    f.samples.push(...restarts.samples);
    f.figure(
      'restarts survived',
      `${restarts.survived}/${restarts.restarts} (half of them SIGKILL mid-stream)`,
      restarts.survived === restarts.restarts,
    );
    f.figure('messages checked after restarts (every seen message, every restart)', restarts.checked);
    f.figure('messages lost', restarts.lost, restarts.lost === 0);
    f.figure('messages duplicated', restarts.duplicated, restarts.duplicated === 0);
    f.figure('messages changed by replay', restarts.changed, restarts.changed === 0);
    f.figure('retained but unseen before a crash (allowed)', restarts.unseenRetained);

    const leave = await clientLeavesMidTurn();
    f.figure(
      'WebSocket client disconnecting mid-turn',
      `watcher got the whole reply: ${leave.watcherGotWholeReply ? 'yes' : 'no'}, stop reason ${leave.stopReason}`,
      leave.watcherGotWholeReply && leave.stopReason === 'end_turn',
    );

    const corrupt = join(temp.dir, 'corrupt.db');
    corruptFile(corrupt);
    badFile(f, 'corrupt', await agentOnFile(corrupt), /damaged or is not a SQLite database/, corrupt);
    const locked = join(temp.dir, 'locked.db');
    (await SqliteHistoryStore.open(locked)).close();
    const holder = new Database(locked);
    holder.pragma('locking_mode = EXCLUSIVE');
    holder.exec('BEGIN EXCLUSIVE');
    badFile(f, 'locked by another process', await agentOnFile(locked), /lock/, locked);
    holder.close();
    if (process.getuid?.() === 0) {
      chmodSync(temp.dir, 0o777);
      const readOnly = join(temp.dir, 'readonly.db');
      copyFileSync(locked, readOnly);
      chownSync(readOnly, 0, 0);
      chmodSync(readOnly, 0o444);
      badFile(
        f,
        'read-only (agent run as nobody)',
        await agentOnFile(readOnly, { uid: 65534 }),
        /cannot be written/,
        readOnly,
      );
    } else {
      f.figure('history file read-only', 'skipped (needs root to run the agent as another user)');
    }

    const oversized = await oversizedThroughStdio(2);
    const oversizedOk = oversized.error?.code === -32600 && oversized.answeredAfter;
    f.figure(
      'oversized line on stdio (2× the 8 MiB limit) answered -32600, next request served',
      oversizedOk ? 'yes' : 'no',
      oversizedOk,
    );
    f.figure(
      'agent peak RSS growth while receiving it',
      `${mib(oversized.peakGrowthBytes)} (line ${mib(oversized.lineBytes)}; includes uncollected garbage)`,
      oversized.peakGrowthBytes < 2 * oversized.lineBytes,
    );

    const slow = await slowClient(Math.round(20_000 * scale), 2000);
    f.figure(
      'slow client (stopped reading 2 s mid-stream) got every chunk after resuming',
      `${slow.nothingLost ? 'yes' : 'no'} (${slow.chunks} chunks)`,
      slow.nothingLost,
    );
    f.figure(
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
      const ids = await bridgeIdsAcrossRestarts(temp.dir, env, Math.max(4, Math.round(12 * scale)), random);
      f.samples.push(...ids.samples);
      f.figure(
        `bridge --serve v2 --history, v1 agent with ${label}: replays equal to what clients saw`,
        `${ids.replays - ids.differing}/${ids.replays} (${ids.restarts} restarts, half SIGKILL; ${ids.checked} messages compared)`,
        ids.differing === 0,
      );
      f.figure(`bridge --serve v2, ${label}: IDs issued twice`, ids.reissued, ids.reissued === 0);
    }
    const v1Races = await cancelRacesThroughV1Bridge(Math.max(9, Math.round(60 * scale)));
    f.samples.push(...v1Races.samples);
    f.figure(
      'bridge --serve v1: prompts cancelled at once / after a tick / mid-stream that ended cancelled',
      `${v1Races.cancelled}/${v1Races.rounds}; uncancelled prompts after them ended end_turn: ${v1Races.clean}/${Math.floor(v1Races.rounds / 3)}`,
      v1Races.cancelled === v1Races.rounds && v1Races.clean === Math.floor(v1Races.rounds / 3),
    );
    const v2Races = await cancelRacesThroughV2Bridge(Math.max(9, Math.round(60 * scale)));
    f.samples.push(...v2Races.samples);
    f.figure(
      'bridge --serve v2: prompts cancelled at once that were refused -32800 or ended cancelled',
      `${v2Races.cancelled}/${v2Races.rounds}; uncancelled prompts after them ended end_turn: ${v2Races.clean}/${Math.floor(v2Races.rounds / 3)}`,
      v2Races.cancelled === v2Races.rounds && v2Races.clean === Math.floor(v2Races.rounds / 3),
    );

    await hostileStress(f, scale);

    const failovers = await repeatedFailovers(Math.max(2, Math.round(20 * scale)));
    f.figure(
      'PostgreSQL failovers with synchronous replication (primary SIGKILLed mid-append, standby promoted; every other one through session-pooling pgbouncers): acknowledged appends lost / stored twice',
      `${failovers.lost}/${failovers.acknowledged} lost, ${failovers.duplicated} twice, over ${failovers.rounds} failovers (${failovers.throughPgBouncer} through pgbouncer)`,
      failovers.lost === 0 && failovers.duplicated === 0,
    );
  } finally {
    temp.cleanup();
  }
}
