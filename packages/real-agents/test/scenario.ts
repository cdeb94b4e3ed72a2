/**
 * The scenario every agent runs on every path with every client: an allowed shell command, a
 * rejected one, a file edit, a cancelled long answer, then `session/resume` with replay on the same
 * connection, on a fresh one and after a restart. Each step is one test (sequential, sharing the
 * session) and one row in the results file.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentSetup, AgentSpec } from './agents.js';
import { fold, isState, stopReasonOf, turn, until } from './conversation.js';
import type { ModelServer } from './model-server.js';
import {
  type ClientId,
  type Host,
  hostFor,
  killAll,
  type PathId,
  type Peer,
  processesWith,
  type Update,
} from './peers.js';
import { type ResultLog, TRANSPORT } from './results.js';

/** One combination of the matrix. */
export interface Combo {
  path: PathId;
  client: ClientId;
}

export const PATHS: readonly PathId[] = ['bridge', 'serve-http', 'serve-websocket'];
export const CLIENTS: readonly ClientId[] = ['acp-kit', 'official'];

/** Whether this run is the full matrix (`npm run agents:matrix`) or the subset in `npm run check`. */
export const FULL_MATRIX = process.env.ACP_KIT_AGENTS_MATRIX === 'full';

/** Every combination, or only `subset` (the part of `npm run check`) unless the full matrix runs. */
export function combos(subset: readonly Combo[]): Combo[] {
  if (!FULL_MATRIX) return [...subset];
  return PATHS.flatMap((path) => CLIENTS.map((client) => ({ path, client })));
}

export interface ScenarioOptions {
  /** The model server the agent talks to (started by the test file). */
  model: () => ModelServer;
  log: ResultLog;
  /**
   * Run the three resume steps. Off for an agent whose `session/load` is known to replay entries it
   * never streamed live (both Claude adapters); `divergent-replay.test.ts` holds those cases.
   */
  resume: boolean;
  /** How the resume steps hold the replay (see {@link expectReplayMatches}); default `exact`. */
  replay?: 'exact' | 'divergent';
  /** A prefix for the describe title (the divergent-replay cases name theirs). */
  title?: string;
  /** Names a setup other than the agent's default in the results file (a column of its own). */
  variant?: string;
  /** Run the file-edit step (default true; codex offers no edit tool with a model it does not know). */
  fileEdit?: boolean;
}

/** The live messages of the completed turns, and the IDs of every live message. */
interface Live {
  sessionId: string;
  /** IDs of the messages of the turns that completed (allowed, rejected, edit). */
  completed: string[];
  /** The user message of the cancelled turn. */
  cancelledPrompt: string;
  messages: ReturnType<typeof fold>;
}

/** What the canned model said: the agent's own history holds it, so its replay must too. */
const SCRIPTED = /^(ran|wrote|said|cannot edit): /;

/**
 * Holds a replay against the live conversation. `exact` (an agent that replays what it streamed):
 * every live message once, under its live ID, with its live content, and nothing else. `divergent`
 * (an agent whose replay differs, under issue 39's rules): every live prompt and every scripted
 * answer once, under its live ID, with its live content; a message seen only live (a warning) may
 * be missing; a message seen only in the replay has an ID never used live; no live ID ever carries
 * other content.
 */
export function expectReplayMatches(
  live: Live,
  replay: readonly Update[],
  mode: 'exact' | 'divergent',
): void {
  const replayed = fold(replay);
  for (const [messageId, message] of replayed) {
    expect(
      message.wholes,
      `message ${messageId} sent whole ${message.wholes} times in one replay`,
    ).toBeLessThanOrEqual(1);
  }
  const liveUsers = [...live.messages].filter(([, m]) => m.kind === 'user_message').map(([id]) => id);
  const replayedUsers = [...replayed].filter(([, m]) => m.kind === 'user_message').map(([id]) => id);
  if (mode === 'exact')
    expect(replayedUsers, 'the replay names the live user messages, no others').toEqual(liveUsers);
  else
    expect(
      replayedUsers.filter((id) => live.messages.has(id)),
      'the replay names the live user messages, in order',
    ).toEqual(liveUsers);
  for (const [messageId, after] of replayed) {
    const before = live.messages.get(messageId);
    if (before === undefined) continue;
    expect(after.kind, `the kind of ${messageId} on replay`).toBe(before.kind);
    expect(after.text, `the content of live ${before.kind} ${messageId} on replay`).toBe(before.text);
  }
  for (const messageId of [...live.completed, live.cancelledPrompt]) {
    const before = live.messages.get(messageId)!;
    const required = mode === 'exact' || before.kind === 'user_message' || SCRIPTED.test(before.text);
    if (!required) continue;
    expect(
      replayed.get(messageId),
      `live ${before.kind} ${messageId} ("${before.text.slice(0, 60)}") is replayed`,
    ).toBeDefined();
  }
}

/** Registers the scenario for one agent, path and client (a `describe` of sequential tests). */
export function describeScenario(spec: AgentSpec, combo: Combo, options: ScenarioOptions): void {
  const { path, client } = combo;
  describe(`${options.title ?? ''}${spec.id} ${spec.version} through ${path} with the ${client} client`, () => {
    let setup: AgentSetup;
    let host: Host;
    let peer: Peer;
    let cwd: string;
    let ledgerDir: string;
    const live: Live = { sessionId: '', completed: [], cancelledPrompt: '', messages: new Map() };
    const row = (check: string) => ({
      spec,
      path: path === 'bridge' ? ('bridge' as const) : ('serve' as const),
      transport: TRANSPORT[path],
      client,
      check,
      ...(options.variant === undefined ? {} : { variant: options.variant }),
    });
    const step = (check: string, body: () => Promise<void>) =>
      it(check, () => options.log.record(row(check), body));

    beforeAll(async () => {
      setup = spec.setup(options.model().origin);
      cwd = mkdtempSync(join(tmpdir(), `acp-kit-${spec.id}-cwd-`));
      ledgerDir = mkdtempSync(join(tmpdir(), `acp-kit-${spec.id}-ledger-`));
      host = await hostFor(path, setup, ledgerDir);
      peer = await host.connect(client);
      live.sessionId = await peer.newSession(cwd);
    });
    afterAll(async () => {
      const dump = process.env.ACP_KIT_AGENTS_DUMP;
      if (dump !== undefined && peer !== undefined) {
        // What the agent did on the wire: the client's updates and the model requests (for a report).
        mkdirSync(dump, { recursive: true });
        const name = `${spec.id}-${path}-${client}`;
        writeFileSync(join(dump, `${name}-updates.json`), JSON.stringify(peer.updates, null, 1));
        writeFileSync(join(dump, `${name}-model.json`), JSON.stringify(options.model().requests, null, 1));
        writeFileSync(join(dump, `${name}-stderr.txt`), host.stderr());
      }
      await peer?.close().catch(() => {});
      await host?.stop();
      // No agent, bridge or gateway of this scenario may outlive it.
      if (setup) killAll(setup);
      setup?.cleanup();
      rmSync(cwd, { recursive: true, force: true });
      rmSync(ledgerDir, { recursive: true, force: true });
    });

    step('turn.allowed', async () => {
      peer.answer = 'allow';
      const file = join(cwd, 'allowed.txt');
      const asked = peer.asked.length;
      const t = await turn(peer, live.sessionId, `run: touch ${file}`);
      live.completed.push(t.messageId);
      expect(t.messageId).toEqual(expect.any(String));
      expect(t.updates).toContainEqual(
        expect.objectContaining({ sessionUpdate: 'user_message', messageId: t.messageId }),
      );
      expect(fold(t.updates).get(t.messageId)?.text).toBe(`run: touch ${file}`);
      const permission = peer.asked.slice(asked);
      expect(permission).toHaveLength(1);
      expect(
        t.updates.some(
          (u) =>
            u.sessionUpdate === 'tool_call_update' &&
            (u as { toolCallId?: string }).toolCallId === permission[0]!.toolCallId,
        ),
        'the permission names a tool call of the conversation',
      ).toBe(true);
      expect(existsSync(file), 'the allowed command ran').toBe(true);
      const agentTexts = [...fold(t.updates)].filter(([, m]) => m.kind === 'agent_message');
      expect(agentTexts.map(([, m]) => m.text).join('')).toContain(`ran: touch ${file}`);
      live.completed.push(...agentTexts.map(([id]) => id));
      const states = t.updates.filter((u) => u.sessionUpdate === 'state_update');
      const running = states.findIndex((u) => isState(u, 'running'));
      const asking = states.findIndex((u) => isState(u, 'requires_action'));
      expect(running).toBeGreaterThanOrEqual(0);
      expect(asking).toBeGreaterThan(running);
      expect(stopReasonOf(states.at(-1)!)).toBe('end_turn');
    });

    step('turn.rejected', async () => {
      peer.answer = 'reject';
      const file = join(cwd, 'rejected.txt');
      const asked = peer.asked.length;
      const t = await turn(peer, live.sessionId, `run: touch ${file}`);
      peer.answer = 'allow';
      live.completed.push(
        t.messageId,
        ...[...fold(t.updates)].filter(([, m]) => m.kind === 'agent_message').map(([id]) => id),
      );
      expect(peer.asked.slice(asked)).toMatchObject([{ answered: 'reject' }]);
      expect(existsSync(file), 'the rejected command did not run').toBe(false);
      expect(t.updates).toContainEqual(
        expect.objectContaining({ sessionUpdate: 'user_message', messageId: t.messageId }),
      );
    });

    if (options.fileEdit ?? true)
      step('turn.file-edit', async () => {
        peer.answer = 'allow';
        const file = join(cwd, 'edit.txt');
        const t = await turn(peer, live.sessionId, `write: ${file} edited`);
        live.completed.push(
          t.messageId,
          ...[...fold(t.updates)].filter(([, m]) => m.kind === 'agent_message').map(([id]) => id),
        );
        expect(readFileSync(file, 'utf8')).toBe('edited\n');
        const diffs = t.updates.flatMap((u) =>
          u.sessionUpdate === 'tool_call_update'
            ? (((u as { content?: unknown[] }).content ?? []) as { type: string }[]).filter(
                (c) => c.type === 'diff',
              )
            : [],
        );
        expect(JSON.stringify(diffs), 'a tool call shows the edit as a diff').toContain(file);
        expect(stopReasonOf(t.updates.at(-1)!)).toBe('end_turn');
      });

    step('turn.cancel', async () => {
      const from = peer.updates.length;
      const messageId = await peer.prompt(live.sessionId, 'long');
      live.cancelledPrompt = messageId;
      await until('the long answer to stream', () =>
        peer.updates
          .slice(from)
          .some((u) => u.sessionUpdate === 'agent_message_chunk' && JSON.stringify(u).includes('tick')),
      );
      await peer.cancel(live.sessionId);
      await until('the cancelled turn to end', () =>
        peer.updates.slice(from).some((u) => stopReasonOf(u) !== undefined),
      );
      expect(
        peer.updates
          .slice(from)
          .map(stopReasonOf)
          .find((r) => r !== undefined),
      ).toBe('cancelled');
      live.messages = fold(peer.updates);
    });

    const resumed = async (target: Peer) => {
      const from = target.updates.length;
      await target.resume(live.sessionId, cwd);
      return target.updates.slice(from);
    };

    if (options.resume) {
      step('resume.same-connection', async () => {
        expectReplayMatches(live, await resumed(peer), options.replay ?? 'exact');
      });

      step('resume.fresh-connection', async () => {
        await peer.close();
        peer = await host.connect(client);
        expectReplayMatches(live, await resumed(peer), options.replay ?? 'exact');
      });

      step('resume.after-restart', async () => {
        await peer.close();
        await host.restart();
        peer = await host.connect(client);
        expectReplayMatches(live, await resumed(peer), options.replay ?? 'exact');
      });
    }

    step('processes.none-left', async () => {
      // The client goes away, then the host is stopped as an operator would (SIGTERM to the gateway;
      // a bridge ends at end of input): no bridge, gateway or agent process of this run may remain.
      await peer.close();
      await host.stop({ graceful: true });
      await until(
        'every process of the run to exit',
        () => processesWith(setup.marker).length === 0,
        60_000,
      ).catch(() => {
        throw new Error(`processes left behind: ${processesWith(setup.marker).join(', ')}`);
      });
    });
  });
}
