import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateToken } from '@acp-kit/sdk';
import { HandshakeGuard } from '@acp-kit/sdk/adapter';
import { AgentRuns, type RunOptions } from './agent-runs.js';
import { EventLog } from './event-log.js';
import { ExtraClients } from './extra-clients.js';
import { send } from './http-io.js';
import { type RouteContext, handleRequest } from './inspect-routes.js';

export { MAX_EXTRA_CLIENTS } from './extra-clients.js';

/**
 * Events kept for a page that reloads: a resumed session of 100 000 chunks fits, a flood beyond it
 * drops its oldest frames (the page says how many it missed).
 */
const EVENT_LIMIT = 250_000;

/** Options of {@link startInspector}. */
export interface InspectorOptions extends RunOptions {
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** The session token of the UI's API; a fresh random one by default. */
  token?: string;
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
  const runs = new AgentRuns(options, events, started);
  const extras = new ExtraClients(runs, options, events, started);
  const streams = new Set<ServerResponse>();
  // Set once the server listens, before any request can arrive.
  let context: RouteContext | undefined;
  const server: Server = createServer((request, response) => {
    void handleRequest(context!, request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, error instanceof Error ? error.message : String(error));
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const guard = new HandshakeGuard({ host: '127.0.0.1', token, allowedOrigins: [origin] });
  context = { origin, guard, target: options.target, events, started, runs, extras, streams };
  await runs.begin();
  return {
    origin: `${origin}/`,
    url: `${origin}/#token=${token}`,
    token,
    events,
    close: async () => {
      runs.beginClosing();
      for (const stream of streams) stream.destroy();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // A browser keeps its connections open; they must not hold the shutdown.
      server.closeAllConnections();
      // A restart under way finishes first (it starts nothing once closing), so no run is missed.
      await runs.settled();
      await Promise.all([runs.stopAll(), extras.stopAll()]);
      await closed;
    },
  };
}
