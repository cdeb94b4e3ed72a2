/**
 * The ways a v2 client reaches a published v1 agent through acp-kit, and the two v2 clients that
 * drive it, behind one small interface so every scenario runs on every combination:
 * - paths: `acp-kit bridge --serve v2 --history <ledger>` on stdio, and `acp-kit serve --v1 --listen`
 *   over Streamable HTTP and over WebSocket (one agent process per connection);
 * - clients: acp-kit's `Client` (`@acp-kit/sdk`) and the official SDK's v2 client
 *   (`@agentclientprotocol/sdk/experimental/v2`).
 * Each path can be restarted (a new bridge on the same ledger, a new gateway), as a host would.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { SessionNotification } from '@acp-kit/schema';
import {
  Client,
  type ClientConnection,
  Connection,
  connectHttp,
  connectWebSocket,
  schemaValidator,
  spawnTransport,
  type Transport,
} from '@acp-kit/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { client as officialClient, ndJsonStream } from '@agentclientprotocol/sdk/experimental/v2';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import { WebSocket } from 'ws';
import type { AgentSetup } from './agents.js';

/** The built `acp-kit` entry point. */
export const BIN = fileURLToPath(new URL('../../cli/dist/bin.js', import.meta.url));

export type PathId = 'bridge' | 'serve-http' | 'serve-websocket';
export type ClientId = 'acp-kit' | 'official';
export type Update = SessionNotification['update'];

/** A permission request as the client saw it. */
export interface Asked {
  toolCallId: string | undefined;
  title: string | undefined;
  answered: 'allow' | 'reject';
  /** How many session updates had arrived when the question came. */
  atUpdate: number;
}

/** One v2 client connection to the agent. */
export interface Peer {
  /** Every `session/update` received, in order. */
  readonly updates: Update[];
  /** Every permission request received, in order. */
  readonly asked: Asked[];
  /** How the next permission requests are answered. */
  answer: 'allow' | 'reject';
  newSession(cwd: string): Promise<string>;
  /** Sends `session/prompt`; resolves with the receipt's `messageId`. */
  prompt(sessionId: string, text: string): Promise<string>;
  cancel(sessionId: string): Promise<void>;
  /** `session/resume` with `replayFrom: {type: 'start'}`; resolves when the response arrived. */
  resume(sessionId: string, cwd: string): Promise<void>;
  close(): Promise<void>;
}

/** Where the agent runs: a bridge or gateway process that can be restarted. */
export interface Host {
  /** A new client connection (a new bridge process on the same ledger, for `bridge`). */
  connect(client: ClientId): Promise<Peer>;
  /**
   * Stops the host. `graceful`: as an operator would (SIGTERM to the gateway; bridges end at the end
   * of their input) and nothing more, so a test can see what is left; otherwise every process of the
   * setup is killed.
   */
  stop(options?: { graceful?: boolean }): Promise<void>;
  /** Restarts the host: the gateway stops (SIGTERM) and starts again; bridges (one per connection) are killed. */
  restart(): Promise<void>;
  /** What the bridge or gateway wrote to stderr. */
  stderr(): string;
}

const pickOption = (options: readonly { optionId: string; kind: string }[], answer: 'allow' | 'reject') =>
  (answer === 'allow'
    ? (options.find((o) => o.kind === 'allow_once') ?? options.find((o) => o.kind.startsWith('allow')))
    : (options.find((o) => o.kind === 'reject_once') ?? options.find((o) => o.kind.startsWith('reject'))))!;

type PermissionParams = {
  options: { optionId: string; kind: string }[];
  subject?: { toolCall?: { toolCallId?: string; title?: string } };
  toolCall?: { toolCallId?: string; title?: string };
};

function record(peer: Peer, params: PermissionParams): string {
  const answer = peer.answer;
  const toolCall = params.subject?.toolCall ?? params.toolCall;
  peer.asked.push({
    toolCallId: toolCall?.toolCallId,
    title: toolCall?.title,
    answered: answer,
    atUpdate: peer.updates.length,
  });
  return pickOption(params.options, answer).optionId;
}

/** acp-kit's own client over a transport. */
async function acpKitPeer(transport: Transport): Promise<Peer> {
  const updates: Update[] = [];
  const asked: Asked[] = [];
  const connection = new Connection(transport, { validator: schemaValidator }) as ClientConnection;
  connection.onMessage((direction, message) => {
    const m = message as { method?: string; params?: SessionNotification };
    if (direction === 'in' && m.method === 'session/update') updates.push(m.params!.update);
  });
  const peer: Peer = {
    updates,
    asked,
    answer: 'allow',
    newSession: (cwd) => client.newSession(cwd),
    prompt: (sessionId, text) => client.prompt(sessionId, [{ type: 'text', text }]),
    cancel: (sessionId) => client.cancel(sessionId),
    resume: async (sessionId, cwd) => {
      await client.resume(sessionId, { cwd, replay: true });
    },
    close: async () => client.close(),
  };
  const client = new Client(connection, {
    info: { name: 'acp-kit-real-agents', version: '0.0.0' },
    onPermission: async (params) => ({
      outcome: { outcome: 'selected', optionId: record(peer, params as PermissionParams) },
    }),
  });
  await client.initialize();
  return peer;
}

type OfficialStream = Parameters<ReturnType<typeof officialClient>['connectWith']>[0];

/** The official SDK's v2 client over a stream; the connection lives until `close()`. */
async function officialPeer(stream: OfficialStream, onClose: () => void = () => {}): Promise<Peer> {
  const updates: Update[] = [];
  const asked: Asked[] = [];
  let done!: () => void;
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  const peer: Peer = {
    updates,
    asked,
    answer: 'allow',
    newSession: async () => '',
    prompt: async () => '',
    cancel: async () => {},
    resume: async () => {},
    close: async () => {
      done();
      await connected.catch(() => {});
      onClose();
    },
  };
  const app = officialClient({ name: 'official-real-agents' })
    .onNotification('session/update', ({ params }) => {
      updates.push(params.update as Update);
    })
    .onRequest('session/request_permission', async ({ params }) => ({
      outcome: { outcome: 'selected', optionId: record(peer, params as PermissionParams) },
    }));
  let resolveReady!: () => void;
  let rejectReady!: (error: unknown) => void;
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  const connected = app.connectWith(stream, async (ctx) => {
    await ctx.request('initialize', { protocolVersion: 2, info: { name: 'official', version: '2.4.0' } });
    peer.newSession = async (cwd) => (await ctx.request('session/new', { cwd, mcpServers: [] })).sessionId;
    peer.prompt = async (sessionId, text) =>
      (await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] }))
        .messageId as string;
    peer.cancel = async (sessionId) => {
      await ctx.notify('session/cancel', { sessionId });
    };
    peer.resume = async (sessionId, cwd) => {
      await ctx.request('session/resume', { sessionId, cwd, mcpServers: [], replayFrom: { type: 'start' } });
    };
    resolveReady();
    await finished;
  });
  connected.catch((error: unknown) => rejectReady(error));
  await ready;
  return peer;
}

/** PIDs of live processes whose environment carries `marker`. */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes(marker))
        found.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** SIGKILLs every process of this agent setup (bridges, gateways and agents carry its marker). */
export function killAll(setup: AgentSetup): void {
  for (const pid of processesWith(setup.marker)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/** `acp-kit bridge --serve v2 --history <ledger> -- <agent>`: one bridge process per connection. */
export function bridgeHost(setup: AgentSetup, ledgerDir: string): Host {
  const ledger = join(ledgerDir, 'ids.ndjson');
  const args = [BIN, 'bridge', '--serve', 'v2', '--history', ledger, '--', ...setup.command];
  let stderr = '';
  const children: ChildProcess[] = [];
  return {
    async connect(client) {
      if (client === 'acp-kit') {
        const transport = spawnTransport(process.execPath, args, { name: 'bridge', env: setup.env });
        return acpKitPeer(transport);
      }
      const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'], env: setup.env });
      children.push(child);
      child.stderr!.setEncoding('utf8').on('data', (text: string) => {
        stderr += text;
      });
      const stream = ndJsonStream(
        Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
      );
      return officialPeer(stream, () => child.stdin!.end());
    },
    async stop(options = {}) {
      if (options.graceful) return;
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
      killAll(setup);
    },
    /** A crash: every bridge and agent process of this setup is killed; the next one reads the same ledger. */
    async restart() {
      killAll(setup);
      const deadline = Date.now() + 60_000;
      while (processesWith(setup.marker).length > 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
    },
    stderr: () => stderr,
  };
}

interface Gateway {
  child: ChildProcess;
  url: string;
  token: string;
}

async function startGateway(setup: AgentSetup, log: (text: string) => void): Promise<Gateway> {
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--listen', '127.0.0.1:0', '--v1', '--', ...setup.command],
    { stdio: ['ignore', 'ignore', 'pipe'], env: setup.env },
  );
  let text = '';
  child.stderr!.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: string) => {
      text += chunk;
      log(chunk);
      if (/each connection runs: /.test(text)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`serve exited with code ${code}: ${text}`)));
  });
  const url = /ACP endpoint \(Streamable HTTP and WebSocket\): (\S+)/.exec(text)![1]!;
  const token = readFileSync(/token file: (\S+)/.exec(text)![1]!, 'utf8').trim();
  return { child, url, token };
}

async function stopGateway(gateway: Gateway): Promise<void> {
  const { child } = gateway;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
}

/** `acp-kit serve --listen 127.0.0.1:0 --v1 -- <agent>`, reached over Streamable HTTP or WebSocket. */
export async function serveHost(setup: AgentSetup, profile: 'http' | 'websocket'): Promise<Host> {
  let stderr = '';
  const log = (text: string) => {
    stderr += text;
  };
  let gateway = await startGateway(setup, log);
  return {
    async connect(client) {
      const { url, token } = gateway;
      const wsUrl = url.replace(/^http/, 'ws');
      if (client === 'acp-kit') {
        return acpKitPeer(
          profile === 'http' ? await connectHttp(url, { token }) : await connectWebSocket(wsUrl, { token }),
        );
      }
      const headers = { Authorization: `Bearer ${token}` };
      return officialPeer(
        profile === 'http'
          ? createHttpStream(url, { headers })
          : createWebSocketStream(wsUrl, { headers, WebSocket: WebSocket as never }),
      );
    },
    async stop(options = {}) {
      await stopGateway(gateway);
      if (!options.graceful) killAll(setup);
    },
    async restart() {
      await stopGateway(gateway);
      gateway = await startGateway(setup, log);
    },
    stderr: () => stderr,
  };
}

/** A host for `path`. */
export async function hostFor(path: PathId, setup: AgentSetup, ledgerDir: string): Promise<Host> {
  if (path === 'bridge') return bridgeHost(setup, ledgerDir);
  return serveHost(setup, path === 'serve-http' ? 'http' : 'websocket');
}
