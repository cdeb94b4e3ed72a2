/**
 * Foreground latency beside a flooding background task: our Agent (in process, over
 * createInProcessPair, schema validation on both ends) runs foreground turns of five reply chunks;
 * each is timed from sending `session/prompt` to its turn-ending idle. Measured with no background
 * work, then while a background terminal of the same session writes BENCH_BURST lines every
 * macrotask without waiting for its writes (the flood fixture of the tests), and for a turn of
 * another session beside the same flood, then with no background work again. Every row follows a
 * discarded warm-up. Prints medians and p99, and each later median as a ratio of the quiet one;
 * asserts nothing.
 *
 * Size: BENCH_SAMPLES turns per row (default 300), BENCH_BURST lines per macrotask (default 200).
 * `BENCH_SAMPLES=5 npx tsx bench/background-flood.ts` is a quick check that it runs.
 */
import {
  type AgentConnection,
  Client,
  type ClientConnection,
  Connection,
  createInProcessPair,
  schemaValidator,
} from '@acp-kit/sdk';
import { floodingAgent } from '../test/agent/fixtures/flooding-agent.js';
import { median, percentile } from './percentile.js';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const BURST = Number(process.env.BENCH_BURST ?? 200);

const { agent, terminals, written } = floodingAgent({ burst: BURST, chunks: 5 });

async function connect(): Promise<Client> {
  const [agentSide, clientSide] = createInProcessPair();
  agent.serve(new Connection(agentSide, { validator: schemaValidator }) as AgentConnection);
  const client = new Client(new Connection(clientSide, { validator: schemaValidator }) as ClientConnection, {
    info: { name: 'bench-client', version: '0' },
  });
  await client.initialize();
  return client;
}

/** Times SAMPLES foreground turns of `sessionId`, one after another, in ms. */
async function turns(client: Client, sessionId: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    // A macrotask between turns: the flood (one burst per macrotask) runs between and during them.
    await new Promise((resolve) => setImmediate(resolve));
    const start = performance.now();
    await client.promptToEnd(sessionId, [{ type: 'text', text: `hello ${i}` }]);
    times.push(performance.now() - start);
  }
  return times;
}

const row = (name: string, times: number[], quiet?: number): string => {
  const sorted = [...times].sort((a, b) => a - b);
  const m = median(times);
  const ratio = quiet === undefined ? '' : `  ×${(m / quiet).toFixed(2)} the quiet median`;
  return `${name.padEnd(38)} median ${m.toFixed(3)} ms  p99 ${percentile(sorted, 99).toFixed(3)} ms${ratio}`;
};

const alice = await connect();
const bob = await connect();
const own = await alice.newSession('/bench');
const other = await bob.newSession('/bench');

// Warm-up, discarded: without it the first row also pays for compiling the code paths, and the
// flooded rows look faster than the quiet one.
await turns(alice, own);
await turns(bob, other);
const quiet = await turns(alice, own);
const quietMedian = median(quiet);
await alice.prompt(own, [{ type: 'text', text: 'flood' }]);
const callsAtStart = written.calls;
const sameSession = await turns(alice, own);
const otherSession = await turns(bob, other);
const calls = written.calls - callsAtStart;
await alice.cancelTerminal(own, terminals.get(own)!.terminalId);
const quietAgain = await turns(alice, own);

console.log(`background-flood: ${SAMPLES} foreground turns per row, flood of ${BURST} lines per macrotask`);
console.log(row('no background work', quiet));
console.log(row('flooding terminal, same session', sameSession, quietMedian));
console.log(row('flooding terminal, other session', otherSession, quietMedian));
console.log(row('no background work (after the flood)', quietAgain, quietMedian));
console.log(`the flooding terminal made ${calls} output calls while the flooded rows ran`);
alice.close();
bob.close();
