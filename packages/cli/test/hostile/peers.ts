/**
 * Hostile peers against the `/acp` endpoint of `acp-kit agent --listen` and of the `serve` gateway,
 * as issue 40 found them from outside: each scenario starts a real server process on 127.0.0.1,
 * plays one flood or stall on real sockets, samples the server's RSS from /proc while it does, and
 * has a well-behaved client on the same server complete a turn meanwhile. Shared by the tests
 * (`hostile-*.test.ts`, small sizes) and `npm run stress` (full sizes).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { connectHttp } from '@acp-kit/sdk';
import { WebSocket } from 'ws';
import { BIN, clientOver, idleCount, requireBuild } from '../harness.js';
import { childrenOf } from '../no-orphans/processes.js';

export const MiB = 1024 * 1024;
/** The fixture agent `serve` runs: its mode is the client's `initialize` `info.name`. */
export const HOSTILE_AGENT = fileURLToPath(new URL('./hostile-agent.mjs', import.meta.url));
/** A second loopback address: the flooder's, so the well-behaved client (127.0.0.1) is another address. */
export const FLOODER_ADDRESS = '127.0.0.2';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Every process a scenario started and has not stopped yet (for afterEach after a failure). */
const running = new Set<ChildProcess>();

/**
 * SIGKILLs `child` and every process under it: a gateway runs each agent in a process group of its
 * own, so a SIGKILL to the gateway alone would leave its agents running (the deaf and flooding
 * ones ignore the end of their input).
 */
function killTree(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const tree: number[] = [];
  const walk = (pid: number): void => {
    for (const below of childrenOf(pid)) {
      tree.push(below);
      walk(below);
    }
  };
  walk(child.pid);
  child.kill('SIGKILL');
  for (const pid of tree) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** SIGKILLs every server process still running, with the agents under it. */
export function killAll(): void {
  for (const child of running) killTree(child);
  running.clear();
}

/** A listening `acp-kit` process: its endpoint, token, pid and stderr. */
export interface Endpoint {
  child: ChildProcess;
  url: string;
  port: number;
  token: string;
  stderr(): string;
  /** Resident memory of the process now, in bytes. */
  rss(): number;
  stop(): void;
}

/** Resident memory of `pid` now, in bytes (0 once it has exited). */
export function rssOf(pid: number): number {
  try {
    const kib = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return Number(kib ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** Starts `acp-kit <args>` (a listening command) and resolves once it listens and printed its token. */
export async function startEndpoint(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Endpoint> {
  requireBuild();
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env });
  running.add(child);
  let text = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    text += chunk;
  });
  await new Promise<void>((resolve, reject) => {
    const check = (): void => {
      if (/ACP endpoint/.test(text) && /token file: |token taken from/.test(text)) resolve();
    };
    child.stderr!.on('data', check);
    child.once('exit', (code) => reject(new Error(`acp-kit ${args[0]} exited with code ${code}: ${text}`)));
  });
  const url = /ACP endpoint \(Streamable HTTP and WebSocket\): (\S+)/.exec(text)![1]!;
  const file = /token file: (\S+)/.exec(text)?.[1];
  const token = file ? readFileSync(file, 'utf8').trim() : env.ACP_KIT_TOKEN!;
  return {
    child,
    url,
    port: Number(new URL(url).port),
    token,
    stderr: () => text,
    rss: () => rssOf(child.pid!),
    stop: () => {
      running.delete(child);
      killTree(child);
    },
  };
}

/** `acp-kit agent --listen 127.0.0.1:0`. */
export const startAgent = (args: string[] = []): Promise<Endpoint> =>
  startEndpoint(['agent', '--listen', '127.0.0.1:0', '--chunk-delay', '0', ...args]);

/** `acp-kit serve --listen 127.0.0.1:0 [flags] -- node hostile-agent.mjs`. */
export const startGateway = (flags: string[] = [], env?: NodeJS.ProcessEnv): Promise<Endpoint> =>
  startEndpoint(['serve', '--listen', '127.0.0.1:0', ...flags, '--', process.execPath, HOSTILE_AGENT], env);

/** An HTTP answer as a raw client sees it (status 0: the request failed, `error` says how). */
export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  error?: string;
}

/** One POST to the endpoint with `node:http` (keep-alive when `agent` is one). */
export function post(
  endpoint: Pick<Endpoint, 'port'>,
  token: string,
  body: unknown,
  headers: Record<string, string> = {},
  options: { agent?: http.Agent; localAddress?: string } = {},
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const data = typeof body === 'string' ? body : JSON.stringify(body);
    const request = http.request(
      {
        host: '127.0.0.1',
        port: endpoint.port,
        path: '/acp',
        method: 'POST',
        ...(options.agent ? { agent: options.agent } : {}),
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Bearer ${token}`,
          'Content-Length': String(Buffer.byteLength(data)),
          ...headers,
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
        );
      },
    );
    request.on('error', (error) => resolve({ status: 0, headers: {}, body: '', error: error.message }));
    request.end(data);
  });
}

export const initialize = (name = 'raw-client') => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: 2, info: { name, version: '0' } },
});

/**
 * A well-behaved client: connects over Streamable HTTP (from 127.0.0.1), creates a session and
 * runs one turn to its end. Resolves true when the turn ended (idle with a stop reason) and the
 * reply arrived; false when anything failed. Bounded by `timeoutMs`.
 */
export async function goodTurn(
  endpoint: Pick<Endpoint, 'url' | 'token'>,
  timeoutMs = 20_000,
): Promise<boolean> {
  let close: (() => Promise<unknown>) | undefined;
  const attempt = (async () => {
    const transport = await connectHttp(endpoint.url, { token: endpoint.token });
    close = () => transport.writer.close();
    const t = await clientOver(transport);
    const sessionId = await t.client.newSession('/work');
    await t.client.prompt(sessionId, [{ type: 'text', text: 'hello through the flood' }]);
    await idleCount(t, 1);
    return true;
  })();
  const timeout = sleep(timeoutMs).then(() => false);
  try {
    return await Promise.race([attempt.catch(() => false), timeout]);
  } finally {
    await close?.().catch(() => {});
  }
}

/** What {@link halfOpenFlood} saw. */
export interface HalfOpenReport {
  /** Flood sockets the server still held once the flood was in. */
  heldByServer: number;
  /** The established client (initialized before the flood) ran a turn during it. */
  establishedServed: boolean;
  /** A new client (another address) ran a turn during it. */
  newClientServed: boolean;
}

/**
 * `count` sockets from {@link FLOODER_ADDRESS} that send a partial request head and no token, held
 * open; meanwhile a client that connected before the flood and a new client each run a turn.
 */
export async function halfOpenFlood(endpoint: Endpoint, count: number): Promise<HalfOpenReport> {
  const established = await connectHttp(endpoint.url, { token: endpoint.token });
  const t = await clientOver(established);
  const sessionId = await t.client.newSession('/before-the-flood');
  const sockets: net.Socket[] = [];
  try {
    let open = 0;
    await Promise.all(
      Array.from(
        { length: count },
        () =>
          new Promise<void>((resolve) => {
            const socket = net.connect({
              port: endpoint.port,
              host: '127.0.0.1',
              localAddress: FLOODER_ADDRESS,
            });
            sockets.push(socket);
            socket.on('error', () => {});
            // Read (and drop) what the server sends: a socket it refuses is answered 503 and closed,
            // and only a reading socket sees that close (an unread one stays open on this side).
            socket.resume();
            socket.once('close', () => {
              open -= 1;
              resolve();
            });
            socket.once('connect', () => {
              open += 1;
              socket.write('POST /acp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl');
              resolve();
            });
          }),
      ),
    );
    // The server closes what it does not hold as it accepts them: wait (bounded) for those closes.
    for (let waited = 0; waited < 10_000 && open > 16; waited += 50) await sleep(50);
    await sleep(200);
    const heldByServer = open;
    const establishedServed = await (async () => {
      try {
        await t.client.prompt(sessionId, [{ type: 'text', text: 'during the flood' }]);
        await Promise.race([idleCount(t, 1), sleep(20_000).then(() => Promise.reject(new Error('no idle')))]);
        return true;
      } catch {
        return false;
      }
    })();
    const newClientServed = await goodTurn(endpoint);
    return { heldByServer, establishedServed, newClientServed };
  } finally {
    for (const socket of sockets) socket.destroy();
    await established.writer.close().catch(() => {});
  }
}

/** What {@link madeUpSessions} saw. */
export interface MadeUpSessionsReport {
  statuses: Record<number, number>;
  rssGrowth: number;
  goodClientServed: boolean;
}

/**
 * `count` notifications (`session/cancel`) on one connection, each naming a different made-up
 * session of about 1 KiB in `Acp-Session-Id` and `params.sessionId`.
 */
export async function madeUpSessions(endpoint: Endpoint, count: number): Promise<MadeUpSessionsReport> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  try {
    const opened = await post(endpoint, endpoint.token, initialize(), {}, { agent });
    const connectionId = String(opened.headers['acp-connection-id']);
    const before = endpoint.rss();
    const statuses: Record<number, number> = {};
    const padding = 'x'.repeat(1000);
    for (let sent = 0; sent < count; sent += 100) {
      const answers = await Promise.all(
        Array.from({ length: Math.min(100, count - sent) }, (_, i) => {
          const sessionId = `made-up-${sent + i}-${padding}`;
          return post(
            endpoint,
            endpoint.token,
            { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId } },
            { 'Acp-Connection-Id': connectionId, 'Acp-Session-Id': sessionId },
            { agent },
          );
        }),
      );
      for (const answer of answers) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    }
    const rssGrowth = endpoint.rss() - before;
    const goodClientServed = await goodTurn(endpoint);
    return { statuses, rssGrowth, goodClientServed };
  } finally {
    agent.destroy();
  }
}

/** What {@link wrongTokens} saw. */
export interface WrongTokensReport {
  statuses: Record<number, number>;
  /** `Retry-After` of the first 429. */
  retryAfter: string | undefined;
  /** The status the right token gets from the guessing address while it is throttled. */
  rightTokenSameAddress: number;
  /** A client on another address ran a turn meanwhile. */
  otherAddressServed: boolean;
  /**
   * The most 401s the allowance can give in the time the guesses took: its burst (20) plus what
   * it refilled meanwhile (2 a second). On a loaded machine the guesses take long enough for a
   * refill or two.
   */
  most401: number;
}

/** `count` requests with wrong tokens (and a made-up `Acp-Connection-Id`) from {@link FLOODER_ADDRESS}. */
export async function wrongTokens(endpoint: Endpoint, count: number): Promise<WrongTokensReport> {
  const statuses: Record<number, number> = {};
  let retryAfter: string | undefined;
  const started = performance.now();
  for (let i = 0; i < count; i += 1) {
    const answer = await post(
      endpoint,
      `wrong-token-guess-number-${i}`,
      { jsonrpc: '2.0', method: 'session/cancel', params: {} },
      { 'Acp-Connection-Id': 'made-up' },
      { localAddress: FLOODER_ADDRESS },
    );
    statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    if (answer.status === 429 && retryAfter === undefined) retryAfter = String(answer.headers['retry-after']);
  }
  const most401 = 20 + Math.ceil(((performance.now() - started) / 1000) * 2);
  const right = await post(endpoint, endpoint.token, initialize(), {}, { localAddress: FLOODER_ADDRESS });
  return {
    statuses,
    retryAfter,
    most401,
    rightTokenSameAddress: right.status,
    otherAddressServed: await goodTurn(endpoint),
  };
}

/** Opens a WebSocket to the endpoint with the token and waits for it to open. */
export function openWebSocket(endpoint: Pick<Endpoint, 'url' | 'token'>): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(endpoint.url.replace(/^http/, 'ws'), {
      headers: { Authorization: `Bearer ${endpoint.token}` },
      perMessageDeflate: false,
    });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** Samples `pid`'s RSS every 50 ms until `done()` or `ms` passed; the largest growth over `base`. */
async function peakGrowth(
  pid: number,
  base: number,
  ms: number,
  done: () => boolean = () => false,
): Promise<number> {
  let peak = 0;
  for (let waited = 0; waited < ms && !done(); waited += 50) {
    peak = Math.max(peak, rssOf(pid) - base);
    // Never let a broken bound take the machine down: past 400 MiB the answer is known.
    if (peak > 400 * MiB) break;
    await sleep(50);
  }
  return peak;
}

/** What {@link floodStalledWebSocket} saw. */
export interface StalledReaderReport {
  /** Peak growth of the gateway's RSS while its client did not read. */
  peakGrowth: number;
  /** The close code the client read once it read again (0: not closed). */
  closeCode: number;
  closeReason: string;
  goodClientServed: boolean;
}

/**
 * A WebSocket client initializes as "flood" (the agent then writes 64 KiB updates as fast as it
 * can) and stops reading for up to `stallMs`; then it reads again and reports how it was closed.
 */
export async function floodStalledWebSocket(
  gateway: Endpoint,
  stallMs: number,
): Promise<StalledReaderReport> {
  const ws = await openWebSocket(gateway);
  const base = gateway.rss();
  let closeCode = 0;
  let closeReason = '';
  const closed = new Promise<void>((resolve) =>
    ws.once('close', (code, reason) => {
      closeCode = code;
      closeReason = reason.toString('utf8');
      resolve();
    }),
  );
  ws.on('error', () => {});
  ws.send(JSON.stringify(initialize('flood')));
  ws.pause();
  const cutOff = (): boolean => /cut off|closed; stopping agent|lost its agent/.test(gateway.stderr());
  const peak = await peakGrowth(gateway.child.pid!, base, stallMs, cutOff);
  const goodClientServed = await goodTurn(gateway);
  ws.resume();
  await Promise.race([closed, sleep(10_000)]);
  ws.terminate();
  return { peakGrowth: peak, closeCode, closeReason, goodClientServed };
}

/** What {@link sendToDeafAgent} saw. */
export interface DeafAgentReport {
  sentBytes: number;
  peakGrowth: number;
  /** For POSTs: how they were answered. */
  statuses: Record<number, number>;
  /** `Retry-After` of the first 503. */
  retryAfter: string | undefined;
  goodClientServed: boolean;
}

const blob = (i: number): string =>
  JSON.stringify({ jsonrpc: '2.0', method: '_hostile/blob', params: { i, data: 'y'.repeat(MiB - 100) } });

/** A WebSocket client initializes as "deaf" (its agent then stops reading stdin) and sends `mib` MiB. */
export async function webSocketIntoDeafAgent(gateway: Endpoint, mib: number): Promise<DeafAgentReport> {
  const ws = await openWebSocket(gateway);
  ws.on('error', () => {});
  const answered = new Promise<void>((resolve) => ws.once('message', () => resolve()));
  ws.send(JSON.stringify(initialize('deaf')));
  await answered;
  const base = gateway.rss();
  let sentBytes = 0;
  for (let i = 0; i < mib; i += 1) {
    const frame = blob(i);
    sentBytes += frame.length;
    ws.send(frame);
  }
  // Whatever the gateway takes, it takes within this time (loopback moves GBs per second).
  const peak = await peakGrowth(gateway.child.pid!, base, 2000);
  const goodClientServed = await goodTurn(gateway);
  ws.terminate();
  return { sentBytes, peakGrowth: peak, statuses: {}, retryAfter: undefined, goodClientServed };
}

/** The same through POSTs: `mib` notifications of 1 MiB on one connection whose agent is deaf. */
export async function postsIntoDeafAgent(gateway: Endpoint, mib: number): Promise<DeafAgentReport> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  try {
    const opened = await post(gateway, gateway.token, initialize('deaf'), {}, { agent });
    const connectionId = String(opened.headers['acp-connection-id']);
    const base = gateway.rss();
    const statuses: Record<number, number> = {};
    let retryAfter: string | undefined;
    let sentBytes = 0;
    let peak = 0;
    for (let i = 0; i < mib; i += 1) {
      const frame = blob(i);
      sentBytes += frame.length;
      const answer = await post(
        gateway,
        gateway.token,
        frame,
        { 'Acp-Connection-Id': connectionId },
        { agent },
      );
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      if (answer.status === 503 && retryAfter === undefined)
        retryAfter = String(answer.headers['retry-after']);
      peak = Math.max(peak, gateway.rss() - base);
      if (peak > 400 * MiB) break;
    }
    peak = Math.max(peak, await peakGrowth(gateway.child.pid!, base, 500));
    const goodClientServed = await goodTurn(gateway);
    return { sentBytes, peakGrowth: peak, statuses, retryAfter, goodClientServed };
  } finally {
    agent.destroy();
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** What {@link abandonedInitialize} saw. */
export interface AbandonedReport {
  agentPid: number;
  /** Whether the agent process was gone within `withinMs` of the client leaving. */
  agentEnded: boolean;
}

/**
 * A client POSTs `initialize` as "mute" (its agent never answers), then goes away before the answer;
 * reports whether that agent process ended within `withinMs`.
 */
export async function abandonedInitialize(gateway: Endpoint, withinMs: number): Promise<AbandonedReport> {
  const before = gateway.stderr().length;
  const data = JSON.stringify(initialize('mute'));
  const request = http.request({
    host: '127.0.0.1',
    port: gateway.port,
    path: '/acp',
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Authorization: `Bearer ${gateway.token}`,
      'Content-Length': String(Buffer.byteLength(data)),
    },
  });
  request.on('error', () => {});
  request.end(data);
  let pid = 0;
  for (let waited = 0; waited < 10_000 && pid === 0; waited += 50) {
    pid = Number(/hostile agent pid (\d+) mode mute/.exec(gateway.stderr().slice(before))?.[1] ?? 0);
    await sleep(50);
  }
  request.destroy();
  let ended = false;
  for (let waited = 0; waited < withinMs && !ended; waited += 50) {
    ended = pid !== 0 && !alive(pid);
    await sleep(50);
  }
  if (pid !== 0 && alive(pid)) process.kill(pid, 'SIGKILL');
  return { agentPid: pid, agentEnded: ended };
}
