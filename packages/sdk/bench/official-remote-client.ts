/**
 * The official SDK's side of the remote-transports benchmark: its v2 client app
 * (`@agentclientprotocol/sdk/experimental/v2`) over `createHttpStream`, `createWebSocketStream`
 * (with `ws`) or `ndJsonStream` on a child process's pipes (bench/official-remote-agent.ts in
 * `stdio` mode). It has no conversation store: its `session/update` handler counts the chunks.
 */
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import {
  type ClientContext,
  ndJsonStream,
  client as officialClient,
} from '@agentclientprotocol/sdk/experimental/v2';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import { WebSocket } from 'ws';
import { type BenchClient, ChunkCounter } from './bench-client.js';
import type { Endpoint } from './listening-agent.js';
import type { Profile } from './ours-remote-client.js';
import { streamPrompt } from './remote-behaviour.js';

export type OfficialStream = Parameters<ReturnType<typeof officialClient>['connectWith']>[0];

const AGENT = fileURLToPath(new URL('./official-remote-agent.ts', import.meta.url));
const CWD = fileURLToPath(new URL('..', import.meta.url));

/** The official client's stream of `profile`: to `endpoint`, or over a fresh agent process's stdio. */
export function officialStream(
  profile: Profile,
  endpoint: Endpoint | undefined,
  fetchImpl?: typeof fetch,
): { stream: OfficialStream; pid: number; stop(): Promise<void> } {
  if (profile === 'stdio') {
    const child = spawn(process.execPath, ['--import', 'tsx', AGENT, 'stdio'], {
      cwd: CWD,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const stream = ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    );
    return {
      stream,
      pid: child.pid!,
      stop: async () => {
        child.stdin.end();
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      },
    };
  }
  if (!endpoint) throw new Error(`${profile} needs an endpoint`);
  const stream =
    profile === 'http'
      ? createHttpStream(endpoint.url, fetchImpl ? { fetch: fetchImpl } : {})
      : createWebSocketStream(endpoint.webSocketUrl, { WebSocket: WebSocket as never });
  return { stream, pid: endpoint.pid, stop: async () => {} };
}

/**
 * Connects the official client over `profile`, initializes and opens a session. `fetchImpl`
 * (http only) lets the caller watch the requests `createHttpStream` makes.
 */
export async function connectOfficial(
  profile: Profile,
  endpoint?: Endpoint,
  fetchImpl?: typeof fetch,
): Promise<BenchClient> {
  const { stream, pid, stop } = officialStream(profile, endpoint, fetchImpl);
  const chunks = new ChunkCounter();
  let idles = 0;
  let idleWaiter: { target: number; resolve(): void } | undefined;
  const app = officialClient({ name: 'bench-official-client' }).onNotification(
    'session/update',
    ({ params }) => {
      const update = params.update as { sessionUpdate: string; state?: string; stopReason?: string };
      if (update.sessionUpdate === 'agent_message_chunk') chunks.add();
      else if (update.sessionUpdate === 'state_update' && update.state === 'idle' && update.stopReason) {
        idles += 1;
        if (idleWaiter && idles >= idleWaiter.target) {
          idleWaiter.resolve();
          idleWaiter = undefined;
        }
      }
    },
  );
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let finished!: Promise<void>;
  // The connection lasts as long as this callback: until close() releases it.
  const context = new Promise<ClientContext>((resolve, reject) => {
    finished = app.connectWith(stream, async (ctx) => {
      resolve(ctx);
      await released;
    });
    finished.catch(reject);
  });
  const ctx = await context;
  await ctx.request('initialize', { protocolVersion: 2, info: { name: 'bench', version: '0.0.0' } });
  const { sessionId } = await ctx.request('session/new', { cwd: '/repo' });
  const prompt = (text: string) =>
    ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  return {
    agentPid: pid,
    receipt: async (text) => {
      await prompt(text);
    },
    streamTurn: async (count) => {
      const target = chunks.count + count;
      const turnEnded = new Promise<void>((resolve) => {
        idleWaiter = { target: idles + 1, resolve };
      });
      const start = performance.now();
      await prompt(streamPrompt(count));
      await chunks.until(target);
      const ms = performance.now() - start;
      await turnEnded;
      return ms;
    },
    close: async () => {
      release();
      await finished.catch(() => undefined);
      await stop();
    },
  };
}
