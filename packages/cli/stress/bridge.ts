/**
 * The bridges under stress, as processes: message IDs across `acp-kit bridge --serve v2` restarts
 * (clean exits and SIGKILL) and replays, and `session/cancel` racing `session/prompt` through both
 * bridges. Each check looks for the whole class: an ID that changes for a message, an ID issued for
 * a second message, a replay that differs from what the clients saw live, a cancel that is lost.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SessionNotification } from '@acp-kit/schema';
import { Connection, type RpcError, spawnTransport } from '@acp-kit/sdk';
import { v1SchemaValidator } from '@acp-kit/v1-compat';
import { BIN, clientOver, isState, type TestClient, textOf } from '../test/harness.js';

const V1_AGENT = fileURLToPath(
  new URL('../../v1-compat/test/fixtures/official-v1-agent.ts', import.meta.url),
);
const text = (t: string) => [{ type: 'text' as const, text: t }] as [{ type: 'text'; text: string }];
const allow = { onPermission: () => ({ outcome: { outcome: 'selected' as const, optionId: 'yes' } }) };

function v2Bridge(env: Record<string, string>, ledger?: string) {
  return spawnTransport(
    process.execPath,
    [
      BIN,
      'bridge',
      '--serve',
      'v2',
      ...(ledger === undefined ? [] : ['--history', ledger]),
      '--',
      process.execPath,
      '--import',
      'tsx',
      V1_AGENT,
    ],
    { name: 'bridge', env: { ...process.env, ...env } },
  );
}

function endsTurn(update: SessionNotification['update']): boolean {
  return isState(update, 'idle') && typeof (update as { stopReason?: unknown }).stopReason === 'string';
}

/** Stop reasons of the turns that ended after the first `from` updates. */
function stopReasons(t: TestClient, from: number): string[] {
  return t
    .updates()
    .slice(from)
    .filter(endsTurn)
    .map((u) => (u as { stopReason: string }).stopReason);
}

/** Whether `promise` settles within `ms` (it keeps running either way). */
function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([promise.then(() => true), late]).finally(() => clearTimeout(timer));
}

type Message = [kind: string, messageId: string | null, text: string];

const messagesOf = (t: TestClient, sessionId: string): Message[] =>
  t.client.store.snapshot(sessionId).messages.map((m) => [m.kind, m.messageId, textOf(m.content ?? [])]);

/** Figures of {@link bridgeIdsAcrossRestarts}. */
export interface BridgeIdReport {
  restarts: number;
  replays: number;
  /** Messages compared, over every replay. */
  checked: number;
  /** Replays that differed from what the clients had seen (an ID or content changed, a message lost or added). */
  differing: number;
  /** Messages that got an ID issued before for another message. */
  reissued: number;
  samples: string[];
}

/**
 * One session through `restarts` restarts of `acp-kit bridge --serve v2 --history`, every other
 * one a SIGKILL of the bridge. Every round replays the session (after the restart, and again after
 * the round's turns, in the same process), compares it with everything seen so far, and runs a few
 * turns — some split live by a permission request, picked with `random`.
 */
export async function bridgeIdsAcrossRestarts(
  dir: string,
  env: Record<string, string>,
  restarts: number,
  random: () => number,
): Promise<BridgeIdReport> {
  const ledger = join(dir, `ids-${Object.values(env).join('-') || 'none'}.ndjson`);
  const files = { ...env, V1_HISTORY: join(dir, `v1-${Object.values(env).join('-') || 'none'}.json`) };
  const report: BridgeIdReport = {
    restarts: 0,
    replays: 0,
    checked: 0,
    differing: 0,
    reissued: 0,
    samples: [],
  };
  const fail = (what: string): void => {
    if (report.samples.length < 8) report.samples.push(what);
  };
  let expected: Message[] = [];
  const issued = new Set<string>();
  let sessionId: string | undefined;

  const compare = (t: TestClient, sid: string, when: string): void => {
    report.replays++;
    const got = messagesOf(t, sid);
    report.checked += expected.length;
    if (JSON.stringify(got) !== JSON.stringify(expected)) {
      report.differing++;
      const at = got.findIndex((m, i) => JSON.stringify(m) !== JSON.stringify(expected[i]));
      fail(
        `${when}: message ${at} was ${JSON.stringify(expected[at])}, replayed ${JSON.stringify(got[at])} (${got.length}/${expected.length} messages)`,
      );
    }
  };

  for (let round = 0; round <= restarts; round++) {
    const transport = v2Bridge(files, ledger);
    const t = await clientOver(transport, allow);
    if (sessionId === undefined) sessionId = await t.client.newSession('/work');
    else {
      report.restarts++;
      await t.client.resume(sessionId, { cwd: '/work', replay: true });
      compare(t, sessionId, `round ${round}, after the restart`);
    }
    for (let turn = 0; turn < 3; turn++) {
      const pick = random();
      const prompt = pick < 0.35 ? 'split' : pick < 0.5 ? 'permission' : `round ${round} turn ${turn}`;
      const from = t.updates().length;
      await t.client.prompt(sessionId, text(prompt));
      await t.until(() => t.updates().slice(from).some(endsTurn));
    }
    const live = messagesOf(t, sessionId);
    for (const [kind, id, content] of live.slice(expected.length)) {
      const key = `${kind}:${id}`;
      if (issued.has(key)) {
        report.reissued++;
        fail(`round ${round}: ${key} issued again, for ${JSON.stringify(content)}`);
      }
      issued.add(key);
    }
    if (JSON.stringify(live.slice(0, expected.length)) !== JSON.stringify(expected)) {
      report.differing++;
      fail(`round ${round}: messages seen before changed live`);
    }
    expected = live;
    await t.client.resume(sessionId, { cwd: '/work', replay: true });
    compare(t, sessionId, `round ${round}, replayed in the same bridge process`);
    if (round % 2 === 1) {
      transport.child.kill('SIGKILL');
      await transport.exited;
    } else {
      t.client.close();
      await transport.exited;
    }
  }
  return report;
}

/** Figures of a cancel race run. */
export interface CancelRaceReport {
  rounds: number;
  /** Cancelled prompts that ended (or were refused) as cancelled. */
  cancelled: number;
  /** Uncancelled prompts after a race that ended `end_turn`. */
  clean: number;
  samples: string[];
}

/**
 * `acp-kit bridge --serve v1 -- acp-kit agent`, driven by a v1 client: `rounds` prompts each
 * followed by a `session/cancel` — in the same tick, after a microtask, or after the first reply
 * chunk — every one must end `cancelled`; every third round an uncancelled prompt must end `end_turn`.
 */
export async function cancelRacesThroughV1Bridge(rounds: number): Promise<CancelRaceReport> {
  const transport = spawnTransport(
    process.execPath,
    [BIN, 'bridge', '--serve', 'v1', '--', process.execPath, BIN, 'agent', '--chunk-delay', '5'],
    { name: 'bridge' },
  );
  const v1 = new Connection(transport, { validator: v1SchemaValidator });
  let chunks = 0;
  const waiters = new Set<() => void>();
  v1.onNotification('session/update', (params) => {
    if ((params as { update: { sessionUpdate: string } }).update.sessionUpdate !== 'agent_message_chunk')
      return;
    chunks++;
    for (const wake of [...waiters]) wake();
  });
  v1.listen();
  const report: CancelRaceReport = { rounds, cancelled: 0, clean: 0, samples: [] };
  try {
    await v1.sendRequest('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = (await v1.sendRequest('session/new', { cwd: '/work', mcpServers: [] })) as {
      sessionId: string;
    };
    const story = 'Tell me a long story about bridges and the rivers under them. '.repeat(20);
    for (let round = 0; round < rounds; round++) {
      const mode = round % 3;
      const before = chunks;
      const turn = v1.sendRequest('session/prompt', { sessionId, prompt: text(story) });
      if (mode === 1) await Promise.resolve();
      if (mode === 2)
        await new Promise<void>((resolve) => {
          const wake = (): void => {
            if (chunks === before) return;
            waiters.delete(wake);
            resolve();
          };
          waiters.add(wake);
        });
      await v1.sendNotification('session/cancel', { sessionId });
      const answer = (await turn) as { stopReason?: string };
      if (answer.stopReason === 'cancelled') report.cancelled++;
      else if (report.samples.length < 8)
        report.samples.push(`v1 round ${round} (cancel mode ${mode}): answered ${JSON.stringify(answer)}`);
      if (round % 3 === 2) {
        const next = (await v1.sendRequest('session/prompt', { sessionId, prompt: text('hi') })) as {
          stopReason?: string;
        };
        if (next.stopReason === 'end_turn') report.clean++;
        else if (report.samples.length < 8)
          report.samples.push(
            `v1 round ${round}: the uncancelled prompt after it answered ${JSON.stringify(next)}`,
          );
      }
    }
  } finally {
    v1.close();
    await transport.exited;
  }
  return report;
}

/**
 * `acp-kit bridge --serve v2` in front of a v1 agent, driven by a v2 client: `rounds` prompts each
 * followed at once (or after a tick) by `session/cancel`, each for a turn that runs until the v1
 * agent hears the cancel; each must be refused with -32800 (never inserted) or inserted and ended
 * `cancelled` — a lost cancel hangs the turn, which the run reports; every third round an
 * uncancelled prompt must end `end_turn`.
 */
export async function cancelRacesThroughV2Bridge(rounds: number): Promise<CancelRaceReport> {
  const transport = v2Bridge({});
  const t = await clientOver(transport, allow);
  const report: CancelRaceReport = { rounds, cancelled: 0, clean: 0, samples: [] };
  const sample = (what: string): void => {
    if (report.samples.length < 8) report.samples.push(what);
  };
  try {
    const sessionId = await t.client.newSession('/work');
    for (let round = 0; round < rounds; round++) {
      const from = t.updates().length;
      // `slow` streams until the cancel reaches the v1 agent: the turn cannot end before it.
      const submitted = t.client.submit(sessionId, text('slow'));
      if (round % 2 === 1) await Promise.resolve();
      await t.client.cancel(sessionId);
      const outcome = await submitted.messageId.then(
        () => 'inserted',
        (error: RpcError) => `refused ${error.code}`,
      );
      if (outcome === 'inserted') {
        if (
          !(await within(
            t.until(() => t.updates().slice(from).some(endsTurn)),
            30_000,
          ))
        ) {
          sample(`v2 round ${round}: inserted, and the turn never ended (the cancel was lost)`);
          break;
        }
        const [reason] = stopReasons(t, from);
        if (reason === 'cancelled') report.cancelled++;
        else
          sample(
            `v2 round ${round}: inserted, then ended ${reason}: ${t
              .updates()
              .slice(from)
              .map((u) =>
                u.sessionUpdate === 'state_update'
                  ? `${u.state}/${(u as { stopReason?: string }).stopReason ?? ''}`
                  : u.sessionUpdate,
              )
              .join(' ')}`,
          );
      } else if (outcome === 'refused -32800') report.cancelled++;
      else sample(`v2 round ${round}: ${outcome}`);
      if (round % 3 === 2) {
        const before = t.updates().length;
        await t.client.prompt(sessionId, text(`after ${round}`));
        await t.until(() => t.updates().slice(before).some(endsTurn));
        const [reason] = stopReasons(t, before);
        if (reason === 'end_turn') report.clean++;
        else sample(`v2 round ${round}: the uncancelled prompt after it ended ${reason}`);
      }
    }
  } finally {
    t.client.close();
    await transport.exited;
  }
  return report;
}
