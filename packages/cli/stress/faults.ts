/**
 * Faults with real `acp-kit agent` processes: killed mid-turn, restarted on the same SQLite
 * history, a WebSocket client leaving mid-turn, and history files that cannot be used. Shared by
 * the CI-sized tests (test/reliability) and `npm run stress`.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SessionNotification } from '@acp-kit/schema';
import { ConversationStore, type RpcError } from '@acp-kit/sdk';
import { replyTo } from '../src/agent/reply-model.js';
import {
  agentProcess,
  BIN,
  clientOver,
  clientOverWebSocket,
  isState,
  listeningAgent,
  type TestClient,
  textOf,
} from '../test/harness.js';
import { worldReadableInstall } from './world-readable.js';

const text = (t: string) => [{ type: 'text' as const, text: t }] as [{ type: 'text'; text: string }];
const words = (n: number): string => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

function isChunk(update: SessionNotification['update']): boolean {
  return update.sessionUpdate === 'agent_message_chunk';
}

/** Whether an update ends a turn: `idle` with a stop reason (a resume's state snapshot has none). */
function endsTurn(update: SessionNotification['update']): boolean {
  return isState(update, 'idle') && typeof (update as { stopReason?: unknown }).stopReason === 'string';
}

/** Resolves once a turn has ended after the first `from` updates of the client's log. */
function turnEnded(t: TestClient, from: number): Promise<void> {
  return t.until(() => t.updates().slice(from).some(endsTurn));
}

/** What happened to a client whose agent was killed in the middle of a turn. */
export interface KillReport {
  /** The error the still-pending prompt rejected with. */
  pendingError: { code: number; message: string } | undefined;
  /** The session's connection state afterwards. */
  connection: string;
  /** The session's last reported work state afterwards (must not be `idle`). */
  state: string;
  /** The pending prompt's entry: `local-unknown` (outcome unknown, never guessed). */
  pendingOrigin: string | undefined;
}

/** Kills the agent with SIGKILL once the first reply chunk has arrived, with a second prompt queued. */
export async function killMidTurn(): Promise<KillReport> {
  const transport = agentProcess(['--chunk-delay', '20']);
  const t = await clientOver(transport);
  const sessionId = await t.client.newSession('/work');
  await t.client.prompt(sessionId, text(words(200)));
  // Held by the agent until the running turn ends: its response is still pending at the kill.
  const queued = t.client.submit(sessionId, text('queued behind the turn'));
  const rejection = queued.messageId.then(
    () => undefined,
    (error: RpcError) => ({ code: error.code, message: error.message }),
  );
  await t.until(() => t.updates().some(isChunk));
  transport.child.kill('SIGKILL');
  const pendingError = await rejection;
  await transport.exited;
  const snapshot = t.client.store.snapshot(sessionId);
  return {
    pendingError,
    connection: snapshot.state.connection,
    state: snapshot.state.state,
    pendingOrigin: snapshot.messages.find((m) => m.localId === queued.localId)?.origin,
  };
}

/** Figures of {@link restartLoop}. */
export interface RestartReport {
  restarts: number;
  /** Message checks made: every message seen so far, checked again after each restart. */
  checked: number;
  /** Restarts after which replay restored every message the client had seen, under the same ID. */
  survived: number;
  /** Messages the client had seen that a replay did not restore (or restored under another ID). */
  lost: number;
  /** Messages replayed twice in one replay, or whose replayed content repeats blocks. */
  duplicated: number;
  /** Messages whose replayed content differs from what the client holds (beyond a crash's unseen tail). */
  changed: number;
  /** Retained messages the client had not seen yet (written just before a crash): allowed, counted. */
  unseenRetained: number;
  samples: string[];
}

interface Seen {
  messageId: string;
  content: string;
  complete: boolean;
}

/**
 * Restarts the agent `restarts` times on one SQLite file. Each round resumes with replay into a
 * fresh store and into the long-lived store, checks both against everything the client had seen,
 * prompts once more, and ends the process: gracefully on even rounds, SIGKILL mid-stream on odd ones
 * (after a number of chunks drawn with `random`).
 */
export async function restartLoop(
  dir: string,
  restarts: number,
  random: () => number,
): Promise<RestartReport> {
  const db = join(dir, 'history.db');
  const report: RestartReport = {
    restarts: 0,
    checked: 0,
    survived: 0,
    lost: 0,
    duplicated: 0,
    changed: 0,
    unseenRetained: 0,
    samples: [],
  };
  const fail = (what: string): void => {
    if (report.samples.length < 8) report.samples.push(what);
  };
  const longLived = new ConversationStore();
  const seen = new Map<string, Seen>();
  let sessionId: string | undefined;

  for (let round = 0; round <= restarts; round++) {
    const transport = agentProcess(['--history', db, '--chunk-delay', '3']);
    const t = await clientOver(transport, { store: longLived });
    if (sessionId === undefined) {
      sessionId = await t.client.newSession('/work');
    } else {
      report.restarts++;
      const ok = await checkReplay(t, sessionId, seen, report, fail);
      if (ok) report.survived++;
    }
    const crash = round % 2 === 1;
    const before = t.updates().length;
    const prompt = t.client.submit(sessionId, text(`round ${round} ${words(crash ? 120 : 6)}`));
    const id = await prompt.messageId;
    if (crash) {
      // Killed after a random number of this turn's chunks (replayed chunks do not count).
      const killAfter = 3 + Math.floor(random() * 20);
      await t.until(() => t.updates().slice(before).filter(isChunk).length >= killAfter);
      transport.child.kill('SIGKILL');
      await transport.exited;
    } else {
      await turnEnded(t, before);
    }
    for (const m of longLived.snapshot(sessionId).messages) {
      if (m.messageId === null || m.origin !== 'agent') continue;
      seen.set(m.key, {
        messageId: m.messageId,
        content: textOf(m.content),
        complete: !crash || m.messageId === id,
      });
    }
    if (!crash) await transport.shutdown({ graceMs: 2000 });
  }
  return report;
}

async function checkReplay(
  t: TestClient,
  sessionId: string,
  seen: Map<string, Seen>,
  report: RestartReport,
  fail: (what: string) => void,
): Promise<boolean> {
  const before = t.updates().length;
  // Replay into the long-lived store (it must not duplicate) and watch the raw updates too.
  await t.client.resume(sessionId, { cwd: '/work', replay: true });
  const replayed = t.updates().slice(before);
  const fresh = new ConversationStore();
  fresh.applyBatch(replayed.map((update) => ({ sessionId, update })));
  let ok = true;
  const heads = new Map<string, number>();
  for (const update of replayed) {
    if (!('messageId' in update) || update.sessionUpdate.endsWith('_chunk')) continue;
    const key = `${update.sessionUpdate}:${update.messageId}`;
    heads.set(key, (heads.get(key) ?? 0) + 1);
  }
  for (const [key, count] of heads) {
    if (count > 1) {
      report.duplicated++;
      ok = false;
      fail(`${key} replayed ${count} times in one replay`);
    }
  }
  const freshMessages = new Map(fresh.snapshot(sessionId).messages.map((m) => [m.key, m]));
  const heldMessages = new Map(t.client.store.snapshot(sessionId).messages.map((m) => [m.key, m]));
  report.checked += seen.size;
  for (const [key, before] of seen) {
    const replayedMessage = freshMessages.get(key);
    if (!replayedMessage) {
      report.lost++;
      ok = false;
      fail(`${key} (seen before the restart) missing from the replay`);
      continue;
    }
    const content = textOf(replayedMessage.content);
    // A crash may retain a chunk the client never received, never the other way round.
    const consistent = before.complete ? content === before.content : content.startsWith(before.content);
    if (!consistent) {
      report.changed++;
      ok = false;
      fail(`${key}: had "${before.content.slice(0, 60)}", replay gave "${content.slice(0, 60)}"`);
    }
    const held = heldMessages.get(key);
    if (held && textOf(held.content) !== content) {
      report.duplicated++;
      ok = false;
      fail(`${key}: the long-lived store holds "${textOf(held.content).slice(0, 60)}" after replay`);
    }
  }
  for (const key of freshMessages.keys()) if (!seen.has(key)) report.unseenRetained++;
  return ok;
}

/** What a client still attached saw after another client left mid-turn. */
export interface LeaveReport {
  /** The watching client's final agent message equals the full reply. */
  watcherGotWholeReply: boolean;
  /** The turn's stop reason as the watcher saw it. */
  stopReason: string | undefined;
}

/** Two WebSocket clients on one session; the submitter disconnects after the first chunk. */
export async function clientLeavesMidTurn(): Promise<LeaveReport> {
  const agent = await listeningAgent(['--chunk-delay', '5']);
  try {
    const submitter = await clientOverWebSocket(agent.url);
    const watcher = await clientOverWebSocket(agent.url);
    const sessionId = await submitter.client.newSession('/work');
    await watcher.client.resume(sessionId, { cwd: '/work' });
    const prompt = words(60);
    const from = watcher.updates().length;
    await submitter.client.prompt(sessionId, text(prompt));
    await submitter.until(() => submitter.updates().some(isChunk));
    submitter.client.close();
    await turnEnded(watcher, from);
    const idle = watcher.updates().slice(from).find(endsTurn) as { stopReason?: string } | undefined;
    const reply = watcher.client.store.snapshot(sessionId).messages.find((m) => m.kind === 'agent_message');
    const expected = replyTo(prompt).pieces.join('');
    watcher.client.close();
    return {
      watcherGotWholeReply: reply !== undefined && textOf(reply.content) === expected,
      stopReason: idle?.stopReason,
    };
  } finally {
    await agent.stop();
  }
}

/** How `acp-kit agent --history <file>` ended on a file it cannot use. */
export interface BadFileReport {
  /** Exit code, or null if it had to be killed (it hung). */
  exitCode: number | null;
  hung: boolean;
  stderr: string;
}

/**
 * Runs the agent on `path` with stdin held open and waits up to `timeoutMs` for it to exit. With
 * `uid` the agent runs as that user from a world-readable copy of the command, so the checkout may
 * sit where that user cannot enter.
 */
export function agentOnFile(
  path: string,
  options: { uid?: number; timeoutMs?: number } = {},
): Promise<BadFileReport> {
  const install = options.uid === undefined ? undefined : worldReadableInstall(dirname(dirname(BIN)));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [install?.bin ?? BIN, 'agent', '--history', path], {
      stdio: ['pipe', 'ignore', 'pipe'],
      ...(install ? { cwd: install.root, uid: options.uid, gid: options.uid } : {}),
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 20_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      install?.cleanup();
      resolve({ exitCode: hung ? null : code, hung, stderr });
    });
  });
}

/** Writes bytes that are not a SQLite database. */
export function corruptFile(path: string): void {
  writeFileSync(path, Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(4096, 0xab)]));
}
