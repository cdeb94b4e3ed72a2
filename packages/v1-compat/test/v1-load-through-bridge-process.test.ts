/**
 * v1 `session/load` through the process-level v2 → v1 bridge, every side a real process: the
 * official SDK's v1 client talks over pipes to the bridge process (`bridge-main.ts v1`, i.e.
 * `serveV2AgentAsV1` on stdio), which spawns the v2 fixture agent (our `Agent`) over stdio. v1
 * semantics: the load streams the session's history as `session/update` notifications, then
 * answers. The history here is long enough to be replayed in several writes and read in several
 * pipe chunks. The order is checked on the bytes the bridge wrote (every line of its stdout), and
 * on what the official client's handlers saw before its `session/load` call returned. And a
 * load while a v1 prompt is inserted but its turn has not started: the current state the v2 agent
 * reports after the replay (`idle`, without a stop reason) does not end that prompt's turn.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { client as officialV1Client, ndJsonStream as v1NdJsonStream } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { bridgeArgs } from './helpers.js';

const TIMEOUT = 120_000;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGTERM');
    await exited;
  }
});

/** One line the bridge wrote to its stdout, parsed. */
interface Line {
  id?: unknown;
  method?: string;
  params?: { sessionId?: string; update?: { sessionUpdate?: string; content?: { text?: string } } };
  result?: unknown;
  error?: unknown;
}

/** The text of a v1 text chunk, or undefined for any other line. */
const chunkText = (line: Line, kind: string): string | undefined =>
  line.method === 'session/update' && line.params?.update?.sessionUpdate === kind
    ? line.params.update.content?.text
    : undefined;

/** `node --import tsx bridge-main.ts v1 node --import tsx v2-agent.ts`, with every stdout line recorded. */
function spawnBridge(): {
  child: ChildProcess;
  lines: Line[];
  stderr: () => string;
  /** Resolves once the bridge's stderr (the agent's passes through it) contains `text`. */
  stderrShows: (text: string) => Promise<void>;
} {
  const child = spawn(process.execPath, bridgeArgs('v1', 'v2-agent.ts'), { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  const stderrWaiters = new Set<() => void>();
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    for (const waiter of [...stderrWaiters]) waiter();
  });
  const stderrShows = (text: string): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => {
        if (!stderr.includes(text)) return;
        stderrWaiters.delete(check);
        resolve();
      };
      stderrWaiters.add(check);
      check();
    });
  const lines: Line[] = [];
  let partial = '';
  // A second reader of the same chunks (the client reads them as bytes, so no setEncoding here).
  const decoder = new StringDecoder('utf8');
  child.stdout!.on('data', (chunk: Buffer) => {
    const parts = (partial + decoder.write(chunk)).split('\n');
    partial = parts.pop() ?? '';
    for (const part of parts) if (part.trim() !== '') lines.push(JSON.parse(part) as Line);
  });
  return { child, lines, stderr: () => stderr, stderrShows };
}

/** A prompt text of about `size` characters, unique to `n`. */
const said = (n: number, size: number): string => `history ${n}: ${'abcdefghij'.repeat(size / 10)}`;

describe('v1 session/load through the bridge process in front of a v2 agent', () => {
  it(
    'streams every history notification before the load response, and prompts after the load run to their end',
    async ({ onTestFailed }) => {
      const { child, lines, stderr } = spawnBridge();
      onTestFailed(() => {
        console.error(`bridge stderr:\n${stderr() || '(nothing)'}`);
      });
      const prompts = [said(1, 40_000), said(2, 40_000), said(3, 40_000)];
      /** What the official client's session/update handler saw, in order. */
      const seen: { kind: string; text: string }[] = [];
      const app = officialV1Client({ name: 'load-order' }).onNotification('session/update', ({ params }) => {
        const update = params.update as { sessionUpdate: string; content?: { type: string; text?: string } };
        if (update.content?.type === 'text')
          seen.push({ kind: update.sessionUpdate, text: update.content.text ?? '' });
      });
      const stream = v1NdJsonStream(
        Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
      );
      const outcome = await app.connectWith(stream, async (ctx) => {
        await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
        const { sessionId } = await ctx.request('session/new', { cwd: '/tmp', mcpServers: [] });
        const stops: unknown[] = [];
        for (const text of prompts) {
          stops.push(await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] }));
        }
        const seenBeforeLoad = seen.length;
        const loadFrom = lines.length; // nothing is in flight: every later line is the load's or after it
        await ctx.request('session/load', { sessionId, cwd: '/tmp', mcpServers: [] });
        const seenAtLoadAnswer = seen.slice(seenBeforeLoad);
        const after = await ctx.request('session/prompt', {
          sessionId,
          prompt: [{ type: 'text', text: 'after load' }],
        });
        const seenAfterPrompt = seen.slice(seenBeforeLoad + seenAtLoadAnswer.length);
        return { sessionId, stops, loadFrom, seenAtLoadAnswer, after, seenAfterPrompt };
      });

      expect(outcome.stops).toEqual(prompts.map(() => ({ stopReason: 'end_turn' })));

      // On the wire: the load's lines are the history's updates, then its response, nothing after.
      const load = lines.slice(outcome.loadFrom);
      const answeredAt = load.findIndex((line) => line.method === undefined && 'result' in line);
      expect(answeredAt).toBeGreaterThan(0);
      const before = load.slice(0, answeredAt);
      const history = (kind: string, from: Line[]) =>
        from.map((line) => chunkText(line, kind)).filter((t): t is string => t !== undefined);
      expect(history('user_message_chunk', before)).toEqual(prompts);
      expect(history('agent_message_chunk', before).join('')).toBe(
        prompts.map((text) => `echo: ${text}!`).join(''),
      );
      // The replay is more than one of the v2 agent's replay writes (64 KB groups).
      expect(before.reduce((n, line) => n + JSON.stringify(line).length, 0)).toBeGreaterThan(200_000);
      const historyAfterAnswer = load
        .slice(answeredAt + 1)
        .filter((line) => prompts.some((text) => chunkText(line, 'user_message_chunk') === text));
      expect(historyAfterAnswer).toEqual([]);

      // What the official client saw before its load call returned: the whole history.
      expect(
        outcome.seenAtLoadAnswer.filter((u) => u.kind === 'user_message_chunk').map((u) => u.text),
      ).toEqual(prompts);
      expect(
        outcome.seenAtLoadAnswer
          .filter((u) => u.kind === 'agent_message_chunk')
          .map((u) => u.text)
          .join(''),
      ).toBe(prompts.map((text) => `echo: ${text}!`).join(''));

      // A prompt after the load runs its turn: its reply arrives, then {stopReason: end_turn}.
      expect(outcome.after).toEqual({ stopReason: 'end_turn' });
      expect(new Set(outcome.seenAfterPrompt.map((u) => u.kind))).toEqual(new Set(['agent_message_chunk']));
      expect(outcome.seenAfterPrompt.map((u) => u.text).join('')).toBe('echo: after load!');
    },
    TIMEOUT,
  );

  it(
    'does not end an open prompt at the idle state a load reports before the prompt’s turn started',
    async ({ onTestFailed }) => {
      const { child, stderr, stderrShows } = spawnBridge();
      onTestFailed(() => {
        console.error(`bridge stderr:\n${stderr() || '(nothing)'}`);
      });
      const events: string[] = [];
      const app = officialV1Client({ name: 'load-during-prompt' }).onNotification(
        'session/update',
        ({ params }) => {
          const update = params.update as { sessionUpdate: string; content?: { text?: string } };
          const text = update.content?.text;
          events.push(text === undefined ? update.sessionUpdate : `${update.sessionUpdate} ${text}`);
        },
      );
      const stream = v1NdJsonStream(
        Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
      );
      const answer = await app.connectWith(stream, async (ctx) => {
        await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
        const { sessionId } = await ctx.request('session/new', { cwd: '/tmp', mcpServers: [] });
        const queued = ctx
          .request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'queued' }] })
          .then((response) => {
            events.push('prompt answered');
            return response;
          });
        await stderrShows('inserted queued'); // inserted; its turn waits for the next session/list
        await ctx.request('session/load', { sessionId, cwd: '/tmp', mcpServers: [] });
        events.push('load answered');
        await ctx.request('session/list', {}); // starts the turn
        return queued;
      });

      expect(answer).toEqual({ stopReason: 'end_turn' });
      // The load replays the inserted prompt; the prompt is answered after its turn's reply.
      expect(events).toEqual([
        'user_message_chunk queued',
        'load answered',
        'agent_message_chunk echo: ',
        'agent_message_chunk queued',
        'agent_message_chunk !',
        'prompt answered',
      ]);
    },
    TIMEOUT,
  );
});
