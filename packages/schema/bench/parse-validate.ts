/**
 * Parse + validate throughput on a realistic agent → client stream, three ways in one process:
 * JSON.parse alone (the floor), JSON.parse + our generated validators, and JSON.parse + the
 * official SDK's experimental v2 zod validators (what its client runs on incoming session/update).
 * Prints msg/s and paired ratios in wall time and in CPU time (the work alone, without the waits
 * of a loaded machine); asserts nothing (machines are noisy).
 */
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { validateParams, validateResult } from '../src/generated/index.js';
import { buildStream } from './stream.js';

interface ZodLike {
  parse(value: unknown): unknown;
}

/** The official SDK's zod schemas are not exported; load the module its v2 entry imports them from. */
async function officialValidators(): Promise<{ notification: ZodLike; promptResponse: ZodLike }> {
  const entry = createRequire(import.meta.url).resolve('@agentclientprotocol/sdk/experimental/v2');
  const zod = (await import(
    pathToFileURL(join(dirname(entry), '..', 'schema', 'zod.gen.js')).href
  )) as Record<string, ZodLike>;
  const notification = zod.zUpdateSessionNotification;
  const promptResponse = zod.zPromptResponse;
  if (notification === undefined || promptResponse === undefined)
    throw new Error('official zod schemas not found');
  return { notification, promptResponse };
}

type Message = { method?: string; params?: unknown; result?: unknown };
type Runner = (line: string) => boolean;

const official = await officialValidators();
const lines = buildStream(1400);

const runners: Record<string, Runner> = {
  'JSON.parse alone': (line) => JSON.parse(line) !== null,
  'ours (JSON.parse + generated validators)': (line) => {
    const message = JSON.parse(line) as Message;
    const result =
      message.method !== undefined
        ? validateParams(message.method, message.params)
        : validateResult('session/prompt', message.result);
    return result?.ok === true;
  },
  'official SDK v2 (JSON.parse + zod)': (line) => {
    const message = JSON.parse(line) as Message;
    try {
      if (message.method !== undefined) official.notification.parse(message.params);
      else official.promptResponse.parse(message.result);
      return true;
    } catch {
      return false;
    }
  },
};

/**
 * One pass over the stream. Wall time counts the time this process waited for a core on a loaded
 * machine; CPU time (user + system of this process, GC threads included) counts only the work.
 */
function pass(run: Runner): { accepted: number; ms: number; cpuMs: number } {
  let accepted = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (const line of lines) if (run(line)) accepted += 1;
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { accepted, ms, cpuMs: (used.user + used.system) / 1000 };
}

const ROUNDS = 31;
const names = Object.keys(runners);
const rates = new Map<string, number[]>(names.map((name) => [name, []]));
const accepted = new Map<string, number>();
for (const run of Object.values(runners)) for (let i = 0; i < 30; i += 1) pass(run); // warm up: let the JIT settle

// The machine is shared and noisy: contenders alternate within every round, and ratios are taken
// per round (paired) before the median, so load that drifts between rounds cancels out.
const cost: number[] = [];
const speedup: number[] = [];
const cpuCost: number[] = [];
const cpuSpeedup: number[] = [];
for (let round = 0; round < ROUNDS; round += 1) {
  const order = round % 2 === 0 ? names : [...names].reverse();
  const roundRate = new Map<string, number>();
  const roundCpu = new Map<string, number>();
  for (const name of order) {
    const result = pass(runners[name]!);
    accepted.set(name, result.accepted);
    const rate = lines.length / (result.ms / 1000);
    roundRate.set(name, rate);
    roundCpu.set(name, result.cpuMs);
    rates.get(name)!.push(rate);
  }
  const [floor, ours, theirs] = names.map((n) => roundRate.get(n)!) as [number, number, number];
  cost.push(floor / ours);
  speedup.push(ours / theirs);
  const [floorCpu, oursCpu, theirsCpu] = names.map((n) => roundCpu.get(n)!) as [number, number, number];
  cpuCost.push(oursCpu / floorCpu);
  cpuSpeedup.push(theirsCpu / oursCpu);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log(
  `stream: ${lines.length} lines (session/update of every kind, mostly agent_message_chunk, plus prompt responses)`,
);
console.log(`${ROUNDS} interleaved rounds after warm-up; medians\n`);
for (const name of names) {
  const rate = median(rates.get(name)!);
  console.log(
    `${name.padEnd(42)} ${Math.round(rate).toLocaleString('en-US').padStart(11)} msg/s   accepted ${accepted.get(name)}/${lines.length}`,
  );
}
console.log('');
console.log('                           wall time         CPU time');
console.log(
  `ours vs official:          ${median(speedup).toFixed(1).padStart(5)}× faster    ${median(cpuSpeedup).toFixed(1).padStart(5)}× faster   (target ≥ 15×)`,
);
console.log(
  `ours' cost vs JSON.parse:  ${median(cost).toFixed(2).padStart(5)}×           ${median(cpuCost).toFixed(2).padStart(5)}×          (target ≤ 1.5×)`,
);
console.log(
  `load average while running: ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} cores`,
);
