/**
 * Two clients on one session, one of which stops reading: the other's throughput and receipt
 * latency must not change. Our Agent streams a turn of CHUNKS agent_message_chunks to a reading
 * client (in process, createInProcessPair) while that client submits prompts one after another and
 * times each receipt. Run twice in the same process — the reader alone, then with a second client
 * attached whose socket is never read (a paused WebSocket) — and printed as ratios. Asserts nothing.
 */
import { PassThrough } from 'node:stream';
import {
  Agent,
  type AgentConnection,
  type AgentSession,
  Client,
  type ClientConnection,
  Connection,
  createInProcessPair,
  streamTransport,
} from '@acp-kit/sdk';

const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 20_000);
const PROMPTS = Number(process.env.BENCH_PROMPTS ?? 300);

interface Result {
  chunksPerSecond: number;
  p50: number;
  p99: number;
}

async function run(withStalled: boolean): Promise<Result> {
  let session: AgentSession | undefined;
  const agent = new Agent({
    info: { name: 'bench-agent', version: '0.0.0' },
    onPrompt(prompt, context) {
      session = context.session;
      void prompt.insert();
    },
  });
  const [agentSide, clientSide] = createInProcessPair();
  agent.serve(new Connection(agentSide) as AgentConnection);
  const connection = new Connection(clientSide) as ClientConnection;
  let received = 0;
  connection.onMessage((direction, message) => {
    const m = message as { method?: string; params?: { update?: { sessionUpdate?: string } } };
    if (direction === 'in' && m.params?.update?.sessionUpdate === 'agent_message_chunk') received++;
  });
  const client = new Client(connection, { info: { name: 'reader', version: '0.0.0' } });
  await client.initialize();
  const sessionId = await client.newSession('/repo');
  await client.prompt(sessionId, [{ type: 'text', text: 'warm up' }]);
  if (withStalled) {
    // Never read: its writes stay queued in its own connection.
    const toAgent = new PassThrough();
    const fromAgent = new PassThrough({ highWaterMark: 16 * 1024 });
    agent.serve(new Connection(streamTransport(toAgent, fromAgent)) as AgentConnection);
    toAgent.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/resume', params: { sessionId, cwd: '/repo' } })}\n`,
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const s = session!;
  const started = performance.now();
  const turn = (async () => {
    await s.running();
    const reply = await s.agentMessage({ retain: false });
    for (let i = 0; i < CHUNKS; i++) await reply.chunk({ type: 'text', text: `token ${i} ` });
    await s.idle('end_turn');
  })();
  const receipts: number[] = [];
  for (let i = 0; i < PROMPTS && received < CHUNKS; i++) {
    const t0 = performance.now();
    await client.prompt(sessionId, [{ type: 'text', text: `q${i}` }]);
    receipts.push((performance.now() - t0) * 1000);
  }
  await turn;
  while (received < CHUNKS) await new Promise((resolve) => setTimeout(resolve, 1));
  const seconds = (performance.now() - started) / 1000;
  receipts.sort((a, b) => a - b);
  const at = (q: number) => receipts[Math.min(receipts.length - 1, Math.floor(q * receipts.length))] ?? 0;
  return { chunksPerSecond: CHUNKS / seconds, p50: at(0.5), p99: at(0.99) };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
console.log(
  `two clients on one session, one stops reading: ${fmt(CHUNKS)}-chunk turn, ${PROMPTS} receipts timed during it`,
);
const rows: [string, Result][] = [];
for (const [label, stalled] of [
  ['reader alone', false],
  ['reader + a client that stopped reading', true],
  ['reader alone (again)', false],
  ['reader + a client that stopped reading (again)', true],
] as const) {
  const result = await run(stalled);
  rows.push([label, result]);
  console.log(
    `  ${label.padEnd(48)} ${fmt(result.chunksPerSecond).padStart(9)} chunks/s   receipt p50 ${fmt(result.p50).padStart(5)} µs  p99 ${fmt(result.p99).padStart(6)} µs`,
  );
}
const alone = rows.filter((_, i) => i % 2 === 0).map(([, r]) => r);
const stalledRows = rows.filter((_, i) => i % 2 === 1).map(([, r]) => r);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(
  `  with the stalled client vs alone: throughput ×${(mean(stalledRows.map((r) => r.chunksPerSecond)) / mean(alone.map((r) => r.chunksPerSecond))).toFixed(2)}, receipt p99 ×${(mean(stalledRows.map((r) => r.p99)) / mean(alone.map((r) => r.p99))).toFixed(2)}   (target: about ×1; before the session log the reader froze once the stalled client's transport buffer filled)`,
);
process.exit(0);
