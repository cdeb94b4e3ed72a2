import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateToken } from '@acp-kit/sdk';
import { HandshakeGuard } from '@acp-kit/sdk/adapter';
import { type AgentRun, type AgentTarget, startRun } from './agent-target.js';
import { EventLog } from './event-log.js';

/** Where the bundled web app lives (built by `scripts/bundle-inspector.mjs` next to this module's folder). */
const APP_DIR = new URL('../inspector/', import.meta.url);

const ASSETS: Record<string, [file: string, type: string]> = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  '/index.html': ['index.html', 'text/html; charset=utf-8'],
  '/app.js': ['app.js', 'text/javascript; charset=utf-8'],
  '/app.css': ['app.css', 'text/css; charset=utf-8'],
  '/lint-worker.js': ['lint-worker.js', 'text/javascript; charset=utf-8'],
};

/**
 * Nothing but this origin: scripts, styles, fetches. The app is one bundle; it never loads anything
 * from outside 127.0.0.1, and an injected `<script>` from a hostile agent string could not run.
 */
const CSP =
  "default-src 'none'; script-src 'self'; worker-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * Events kept for a page that reloads: a resumed session of 100 000 chunks fits, a flood beyond it
 * drops its oldest frames (the page says how many it missed).
 */
const EVENT_LIMIT = 250_000;

/**
 * The most extra clients (`POST /api/connect`) connected at once: each panel on the page is one
 * open connection to the remote agent, and no more are held than the page shows. Well below the
 * reference agent's 16 connections per address.
 */
export const MAX_EXTRA_CLIENTS = 4;

/** The largest frame the page may send to the agent. */
const MAX_SEND_BYTES = 8 * 1024 * 1024;

/** Options of {@link startInspector}. */
export interface InspectorOptions {
  target: AgentTarget;
  /** The CLI's entry script, to run `acp-kit bridge` for a v1 agent. */
  cliEntry: string;
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** The session token of the UI's API; a fresh random one by default. */
  token?: string;
  /** The page's default working directory for new sessions; the directory the inspector runs in by default. */
  cwd?: string;
}

/** A running inspector. */
export interface Inspector {
  /** `http://127.0.0.1:<port>/` */
  readonly origin: string;
  /** The URL to open: the origin with the session token in the fragment (never sent to the server). */
  readonly url: string;
  /** The UI's session token (`Authorization: Bearer <token>` on every /api request). */
  readonly token: string;
  /** Every event so far. */
  readonly events: EventLog;
  /** Stops the agent and the server. */
  close(): Promise<void>;
}

function send(
  response: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers });
  response.end(body);
}

function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_SEND_BYTES) {
        resolve(undefined);
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/**
 * Serves the inspector on 127.0.0.1: the web app (static, no secrets) and its API under `/api/`,
 * which demands the per-run session token and this server's own origin. The agent runs here; the
 * page is the ACP client, and every raw frame goes through this process both ways, so a crashing,
 * flooding or garbage-writing agent can only end its own run: the server stays up and
 * `POST /api/restart` starts a fresh one.
 *
 * Both directions are logged here, on one clock, so the traffic's order and timing are the wire's,
 * and a page that reloads rebuilds the whole session from the log.
 *
 * API: `GET /api/events?after=<seq>` (Server-Sent Events, each `data:` one {@link InspectorEvent}),
 * `POST /api/send[?conn=<n>]` (one JSON-RPC frame for the agent, on the main connection or an extra
 * client's), `POST /api/connect` (a remote agent only: opens one more connection, for a second
 * client; answers `{"conn": n}`; at most {@link MAX_EXTRA_CLIENTS} at once, 429 beyond, and 502 with
 * the reason when the agent refuses the connection), `POST /api/restart` (one at a time: it stops
 * the running agent, process group and all, before it starts the next). `close()` stops every agent
 * and connection this inspector started.
 */
export async function startInspector(options: InspectorOptions): Promise<Inspector> {
  const token = options.token ?? generateToken();
  const events = new EventLog(EVENT_LIMIT);
  const started = Date.now();
  let runNumber = 0;
  let current: AgentRun | undefined;
  let live = false;
  /** Every run not yet stopped: normally one; the one being replaced too during a restart. */
  const runs = new Set<AgentRun>();
  /** The restart in progress (restarts run one at a time), and one queued behind it that later requests join. */
  let restarting: Promise<void> = Promise.resolve();
  let queuedRestart: Promise<void> | undefined;
  let closing = false;
  const streams = new Set<ServerResponse>();
  /** The extra clients' connections to a remote agent, by connection number (2 and up). */
  const extras = new Map<number, { live: boolean; run: number; agent: AgentRun }>();
  let nextConn = 2;

  const begin = async (): Promise<void> => {
    if (closing) return;
    const run = ++runNumber;
    live = true;
    current = await startRun(options.target, options.cliEntry, {
      onFrame: (text) => events.push({ type: 'frame', run, t: Date.now() - started, text }),
      onStderr: (text) => events.push({ type: 'stderr', run, text }),
      onEnd: (end) => {
        if (run === runNumber) live = false;
        events.push({ type: 'ended', run, ...end });
      },
    });
    runs.add(current);
    events.push({
      type: 'started',
      run,
      description: current.description,
      target: options.target.kind,
      cwd: options.cwd ?? process.cwd(),
    });
  };

  const stopRun = async (run: AgentRun | undefined): Promise<void> => {
    if (run === undefined) return;
    await run.stop();
    runs.delete(run);
  };

  /**
   * Stops the agent and starts a fresh one. Restarts run one at a time, each stopping the run
   * before it, so the inspector never holds more than the one agent it shows; requests that come
   * while one restart waits behind another join the waiting one.
   */
  const restart = (): Promise<void> => {
    if (queuedRestart !== undefined) return queuedRestart;
    const next = restarting.then(async () => {
      queuedRestart = undefined;
      const previous = current;
      current = undefined;
      live = false;
      await stopRun(previous);
      await begin();
    });
    queuedRestart = next;
    restarting = next.catch(() => {});
    return next;
  };

  let guard: HandshakeGuard | undefined;
  let origin = '';
  const server: Server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, error instanceof Error ? error.message : String(error));
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', origin);
    // DNS rebinding: a page of another name that resolves here gets nothing, not even the app.
    if (request.headers.host !== new URL(origin).host) return send(response, 421, 'wrong Host header');
    const asset = ASSETS[url.pathname];
    if (request.method === 'GET' && asset) {
      const body = await readFile(new URL(asset[0], APP_DIR));
      response.writeHead(200, {
        'Content-Type': asset[1],
        'Content-Security-Policy': CSP,
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
        'Cache-Control': 'no-store',
      });
      response.end(body);
      return;
    }
    if (!url.pathname.startsWith('/api/')) return send(response, 404, 'not found');
    const refusal = guard!.check(request, request.socket.remoteAddress ?? '');
    if (refusal) return send(response, refusal.status, refusal.reason, refusal.headers);
    if (url.pathname === '/api/events' && request.method === 'GET') {
      const after = Number(url.searchParams.get('after') ?? '0');
      response.writeHead(200, {
        'Content-Type': 'text/event-stream',
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
      });
      const write = (event: unknown): void => void response.write(`data: ${JSON.stringify(event)}\n\n`);
      const backlog = events.since(Number.isFinite(after) ? after : 0);
      for (const event of backlog) write(event);
      // Not logged: tells this page that what follows happens now, not in the replayed log.
      write({ seq: backlog.at(-1)?.seq ?? after, type: 'live' });
      const unsubscribe = events.subscribe(write);
      streams.add(response);
      response.on('close', () => {
        unsubscribe();
        streams.delete(response);
      });
      return;
    }
    if (url.pathname === '/api/send' && request.method === 'POST') {
      const body = await readBody(request);
      if (body === undefined) return send(response, 413, `a frame is at most ${MAX_SEND_BYTES} bytes`);
      const conn = Number(url.searchParams.get('conn') ?? '1');
      if (conn !== 1) {
        const extra = extras.get(conn);
        if (extra === undefined || !extra.live) return send(response, 409, `client ${conn} is not connected`);
        events.push({ type: 'sent', run: extra.run, conn, t: Date.now() - started, text: body });
        await extra.agent.send(body);
        return send(response, 204, '');
      }
      if (!live || current === undefined) return send(response, 409, 'the agent is not running; restart it');
      // Logged before it is written, so the agent's answer can never be listed ahead of it.
      events.push({ type: 'sent', run: runNumber, t: Date.now() - started, text: body });
      await current.send(body);
      return send(response, 204, '');
    }
    if (url.pathname === '/api/connect' && request.method === 'POST') {
      // One stdio process has one connection: a second client needs an agent that takes several.
      if (options.target.kind !== 'remote')
        return send(
          response,
          409,
          'a stdio agent has one connection; to watch two clients, run the agent on a listening transport (for the reference agent: acp-kit agent --listen) and inspect it with --url',
        );
      if (closing) return send(response, 503, 'the inspector is stopping');
      if (extras.size >= MAX_EXTRA_CLIENTS)
        return send(
          response,
          429,
          `at most ${MAX_EXTRA_CLIENTS} extra clients are connected at once; this page has ${extras.size} (a client's connection is released when it ends)`,
        );
      const conn = nextConn++;
      const run = runNumber;
      const extra = { live: true, run, agent: undefined as unknown as AgentRun, reason: '' };
      extras.set(conn, extra);
      extra.agent = await startRun(options.target, options.cliEntry, {
        onFrame: (text) => events.push({ type: 'frame', run, conn, t: Date.now() - started, text }),
        onStderr: () => {},
        onEnd: (end) => {
          extra.live = false;
          extra.reason = end.reason;
          // An ended connection is not held: it no longer counts against the cap.
          extras.delete(conn);
          events.push({ type: 'ended', run, conn, ...end });
        },
      });
      if (closing) {
        await extra.agent.stop();
        return send(response, 503, 'the inspector is stopping');
      }
      // Refused (the remote agent's own limits, a wrong token, nothing listening): say so, not 200.
      if (!extra.live) return send(response, 502, extra.reason);
      events.push({ type: 'started', run, conn, description: extra.agent.description });
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ conn }));
      return;
    }
    if (url.pathname === '/api/restart' && request.method === 'POST') {
      if (closing) return send(response, 503, 'the inspector is stopping');
      await restart();
      return send(response, 204, '');
    }
    return send(response, 404, 'no such API');
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  guard = new HandshakeGuard({ host: '127.0.0.1', token, allowedOrigins: [origin] });
  await begin();
  return {
    origin: `${origin}/`,
    url: `${origin}/#token=${token}`,
    token,
    events,
    close: async () => {
      closing = true;
      for (const stream of streams) stream.destroy();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // A browser keeps its connections open; they must not hold the shutdown.
      server.closeAllConnections();
      // A restart under way finishes first (it starts nothing once closing), so no run is missed.
      await restarting;
      await Promise.all([
        ...[...runs].map((run) => stopRun(run)),
        ...[...extras.values()].map((extra) => extra.agent?.stop()),
      ]);
      await closed;
    },
  };
}
