import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HandshakeGuard } from '@acp-kit/sdk/adapter';
import type { AgentRuns } from './agent-runs.js';
import type { AgentTarget } from './agent-target.js';
import { appAsset, serveAsset } from './app-assets.js';
import type { EventLog } from './event-log.js';
import { type ExtraClients, MAX_EXTRA_CLIENTS } from './extra-clients.js';
import { MAX_SEND_BYTES, readBody, send } from './http-io.js';

/** What the inspector's routes serve from. */
export interface RouteContext {
  /** `http://127.0.0.1:<port>`: the only Host and Origin the server answers. */
  readonly origin: string;
  /** Checks every /api request's token and origin. */
  readonly guard: HandshakeGuard;
  readonly target: AgentTarget;
  readonly events: EventLog;
  /** The log's clock: frames are stamped in ms since it. */
  readonly started: number;
  readonly runs: AgentRuns;
  readonly extras: ExtraClients;
  /** The open event streams, destroyed on close. */
  readonly streams: Set<ServerResponse>;
}

/** `GET /api/events?after=<seq>`: the kept events after `seq`, then every later one, as SSE. */
function streamEvents(context: RouteContext, url: URL, response: ServerResponse): void {
  const { events, streams } = context;
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
}

/** `POST /api/send[?conn=<n>]`: one frame for the agent, on the main connection or an extra client's. */
async function sendFrame(
  context: RouteContext,
  url: URL,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const { events, started, runs } = context;
  const body = await readBody(request);
  if (body === undefined) return send(response, 413, `a frame is at most ${MAX_SEND_BYTES} bytes`);
  const conn = Number(url.searchParams.get('conn') ?? '1');
  if (conn !== 1) {
    const extra = context.extras.live(conn);
    if (extra === undefined) return send(response, 409, `client ${conn} is not connected`);
    events.push({ type: 'sent', run: extra.run, conn, t: Date.now() - started, text: body });
    await extra.agent.send(body);
    return send(response, 204, '');
  }
  const current = runs.liveRun;
  if (current === undefined) return send(response, 409, 'the agent is not running; restart it');
  // Logged before it is written, so the agent's answer can never be listed ahead of it.
  events.push({ type: 'sent', run: runs.runNumber, t: Date.now() - started, text: body });
  await current.send(body);
  return send(response, 204, '');
}

/** `POST /api/connect`: one more connection to a remote agent, for a second client (`{"conn": n}`). */
async function connectClient(context: RouteContext, response: ServerResponse): Promise<void> {
  const { extras } = context;
  // One stdio process has one connection: a second client needs an agent that takes several.
  if (context.target.kind !== 'remote')
    return send(
      response,
      409,
      'a stdio agent has one connection; to watch two clients, run the agent on a listening transport (for the reference agent: acp-kit agent --listen) and inspect it with --url',
    );
  if (context.runs.closing) return send(response, 503, 'the inspector is stopping');
  if (extras.size >= MAX_EXTRA_CLIENTS)
    return send(
      response,
      429,
      `at most ${MAX_EXTRA_CLIENTS} extra clients are connected at once; this page has ${extras.size} (a client's connection is released when it ends)`,
    );
  const outcome = await extras.connect();
  if ('status' in outcome) return send(response, outcome.status, outcome.reason);
  response.writeHead(200, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify({ conn: outcome.conn }));
}

/** `POST /api/restart`: stops the running agent, process group and all, and starts the next. */
async function restartAgent(context: RouteContext, response: ServerResponse): Promise<void> {
  if (context.runs.closing) return send(response, 503, 'the inspector is stopping');
  await context.runs.restart();
  return send(response, 204, '');
}

/**
 * Routes one request: the web app's files to any page of this origin's Host, the API only with
 * the session token and this origin (the guard), everything else 404.
 */
export async function handleRequest(
  context: RouteContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const { origin } = context;
  const url = new URL(request.url ?? '/', origin);
  // DNS rebinding: a page of another name that resolves here gets nothing, not even the app.
  if (request.headers.host !== new URL(origin).host) return send(response, 421, 'wrong Host header');
  const asset = appAsset(url.pathname);
  if (request.method === 'GET' && asset) return serveAsset(asset, response);
  if (!url.pathname.startsWith('/api/')) return send(response, 404, 'not found');
  const refusal = context.guard.check(request, request.socket.remoteAddress ?? '');
  if (refusal) return send(response, refusal.status, refusal.reason, refusal.headers);
  if (url.pathname === '/api/events' && request.method === 'GET') return streamEvents(context, url, response);
  if (url.pathname === '/api/send' && request.method === 'POST')
    return sendFrame(context, url, request, response);
  if (url.pathname === '/api/connect' && request.method === 'POST') return connectClient(context, response);
  if (url.pathname === '/api/restart' && request.method === 'POST') return restartAgent(context, response);
  return send(response, 404, 'no such API');
}
