/**
 * Replays that differ from what was streamed live, as published agents' do, through the bridge
 * process (`bridge-main.ts v2`, what `acp-kit bridge --serve v2` runs) in front of the official
 * SDK's v1 fixture agent: a warning agent message streamed live and never replayed (codex-acp with
 * a model it does not know), and two user entries replayed that were never sent live
 * (claude-agent-acp 0.23.1's `/model`). On the same connection, on a fresh bridge process without
 * stored IDs, and after a restart with `--history`: every message is replayed once, a client that
 * holds the live conversation never has content overwritten, and no ID names two contents.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContentBlock, SessionUpdate } from '@acp-kit/schema';
import {
  type ChildProcessTransport,
  Client,
  type ClientConnection,
  Connection,
  spawnTransport,
} from '@acp-kit/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { bridgeArgs, textOf, UpdateLog } from './helpers.js';

const CWD = '/tmp';
const TIMEOUT = 120_000;
const text = (t: string): [ContentBlock] => [{ type: 'text', text: t }];
const endsTurn = (u: SessionUpdate): boolean =>
  u.sessionUpdate === 'state_update' && u.state === 'idle' && typeof u.stopReason === 'string';

type Message = [kind: string, messageId: string, text: string];

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Bridge {
  readonly client: Client;
  readonly log: UpdateLog;
  /** Resolves once the bridge process's stderr (its warnings) contains `text` (the pipe may lag the answers). */
  stderrShows(text: string): Promise<void>;
  close(): Promise<void>;
}

/** Starts the bridge process in front of the fixture agent with `env`, and a v2 client over its stdio. */
async function startBridge(env: Record<string, string>): Promise<Bridge> {
  let stderr = '';
  const waiters = new Set<() => void>();
  const stderrShows = (expected: string): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => {
        if (!stderr.includes(expected)) return;
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
    });
  const transport: ChildProcessTransport = spawnTransport(
    process.execPath,
    bridgeArgs('v2', 'official-v1-agent.ts'),
    {
      name: 'bridge',
      env: { ...process.env, ...env },
      onStderr: (t) => {
        stderr += t;
        // A wait made before the text arrived is settled now (the pipe may lag the answers).
        for (const check of [...waiters]) check();
      },
    },
  );
  const connection: ClientConnection = new Connection(transport);
  const log = new UpdateLog().tap(connection);
  const client = new Client(connection, { info: { name: 'divergent-replay', version: '1' } });
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    client.close();
    await transport.shutdown({ graceMs: 2000 });
  };
  cleanups.push(close);
  await client.initialize();
  return { client, log, stderrShows, close };
}

/** Prompts and waits for the turn's end. */
async function turn(bridge: Bridge, sessionId: string, prompt: string): Promise<string> {
  const ended = bridge.log.updates.filter(endsTurn).length;
  const messageId = await bridge.client.prompt(sessionId, text(prompt));
  await bridge.log.waitFor(() => bridge.log.updates.filter(endsTurn).length > ended);
  return messageId;
}

/** `[kind, messageId, text]` of every message a client holds, in order. */
function messages(client: Client, sessionId: string): Message[] {
  return client.store
    .snapshot(sessionId)
    .messages.map((m) => [m.kind, m.messageId ?? '', textOf(m.content)] as Message);
}

/** Every ID names one message, and one content. */
function expectOneContentPerId(held: Message[]): void {
  const ids = held.map(([, id]) => id);
  expect(new Set(ids).size).toBe(ids.length);
}

/** Every live message is still held under its live ID with its live content. */
function expectLiveKept(held: Message[], live: Message[]): void {
  for (const message of live) expect(held).toContainEqual(message);
}

const EXTRA = [
  '<command-name>/model</command-name>',
  '<local-command-stdout>Set model to fast</local-command-stdout>',
];
const WARNING = 'Warning: unknown model.';

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'v1-divergent-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('replays that differ from the live stream, through the bridge process', () => {
  for (const withHistory of [false, true]) {
    const label = withHistory ? 'with --history' : 'without --history';

    it(`keeps a live-only agent message and every live ID and content (codex-acp's warning), ${label}`, {
      timeout: TIMEOUT,
    }, async () => {
      const dir = tempDir();
      const env = {
        V1_DIVERGE: 'live-notice',
        V1_HISTORY: join(dir, 'agent.json'),
        ...(withHistory ? { BRIDGE_HISTORY: join(dir, 'ids.ndjson') } : {}),
      };
      const first = await startBridge(env);
      const sessionId = await first.client.newSession(CWD);
      const receipts = [await turn(first, sessionId, 'one'), await turn(first, sessionId, 'two')];
      const live = messages(first.client, sessionId);
      expect(live.map(([kind, , t]) => [kind, t])).toEqual([
        ['user_message', 'one'],
        ['agent_message', WARNING],
        ['agent_message', 'echo: one'],
        ['user_message', 'two'],
        ['agent_message', WARNING],
        ['agent_message', 'echo: two'],
      ]);

      // Same connection: the client holds the live conversation; nothing of it is overwritten.
      await first.client.resume(sessionId, { cwd: CWD, replay: true });
      const same = messages(first.client, sessionId);
      expect(same).toEqual(live);
      await first.close();

      // A fresh bridge process (after a restart when the IDs are kept in a file).
      const second = await startBridge(env);
      await second.client.resume(sessionId, { cwd: CWD, replay: true });
      const replayed = messages(second.client, sessionId);
      // Every replayed message once, the warnings (never replayed) absent.
      expect(replayed.map(([kind, , t]) => [kind, t])).toEqual(
        live.filter(([, , t]) => t !== WARNING).map(([kind, , t]) => [kind, t]),
      );
      expectOneContentPerId(replayed);
      // The prompts keep their receipts' IDs, also without stored IDs (derived from what they say).
      expect(replayed.filter(([kind]) => kind === 'user_message').map(([, id]) => id)).toEqual(receipts);
      if (withHistory) {
        // With the ledger: every replayed message under its live ID with its live content.
        expectLiveKept(live, replayed);
      }
      const receipt = await turn(second, sessionId, 'three');
      expect(receipts).not.toContain(receipt);
      expectOneContentPerId(messages(second.client, sessionId));
    });

    it(`gives replay-only user entries new IDs, never the live prompts' (claude-agent-acp's /model), ${label}`, {
      timeout: TIMEOUT,
    }, async () => {
      const dir = tempDir();
      const env = {
        V1_DIVERGE: 'replay-extra',
        V1_HISTORY: join(dir, 'agent.json'),
        ...(withHistory ? { BRIDGE_HISTORY: join(dir, 'ids.ndjson') } : {}),
      };
      const first = await startBridge(env);
      const sessionId = await first.client.newSession(CWD);
      const receipts = [await turn(first, sessionId, 'one'), await turn(first, sessionId, 'two')];
      const live = messages(first.client, sessionId);
      expect(live.map(([kind, , t]) => [kind, t])).toEqual([
        ['user_message', 'one'],
        ['agent_message', 'echo: one'],
        ['user_message', 'two'],
        ['agent_message', 'echo: two'],
      ]);

      // Same connection: the live messages keep their IDs and content; the two entries never
      // shown live arrive as new messages of their own, and the bridge says so.
      await first.client.resume(sessionId, { cwd: CWD, replay: true });
      const same = messages(first.client, sessionId);
      expectLiveKept(same, live);
      expectOneContentPerId(same);
      const extras = same.filter(([, id]) => !live.some(([, liveId]) => liveId === id));
      expect(extras.map(([kind, , t]) => [kind, t])).toEqual(EXTRA.map((t) => ['user_message', t]));
      await first.stderrShows(
        `warning: session/load for session ${sessionId}: the v1 agent official-v1-fixture`,
      );
      await first.stderrShows(JSON.stringify(EXTRA[0]));
      await first.close();

      // A fresh bridge process: each entry a message of its own (not merged into the prompt).
      const second = await startBridge(env);
      await second.client.resume(sessionId, { cwd: CWD, replay: true });
      const replayed = messages(second.client, sessionId);
      expect(replayed.map(([kind, , t]) => [kind, t])).toEqual([
        ...EXTRA.map((t) => ['user_message', t]),
        ['user_message', 'one'],
        ['agent_message', 'echo: one'],
        ['user_message', 'two'],
        ['agent_message', 'echo: two'],
      ]);
      expectOneContentPerId(replayed);
      // The prompts keep their receipts' IDs, with or without stored IDs, and so do the replies.
      expectLiveKept(replayed, live);
      expect(replayed.filter(([, id]) => receipts.includes(id)).map(([, , t]) => t)).toEqual(['one', 'two']);
      if (withHistory) {
        // The entries seen in the first replay keep the IDs they got there.
        for (const extra of extras) expect(replayed).toContainEqual(extra);
      }
      const receipt = await turn(second, sessionId, 'three');
      expect(receipts).not.toContain(receipt);
      expectOneContentPerId(messages(second.client, sessionId));
    });
  }
});
