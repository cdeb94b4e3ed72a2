/**
 * Failover time of session ownership: a replica process holds a session's lease (renewing it),
 * is killed with SIGKILL, and a survivor polls every 25 ms until it takes the session over. Prints
 * the time from the kill to the takeover against the lease time (target: under lease time + 1 s).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { PostgresSessionLeases } from '../src/index.js';
import { fixed, quantile } from './stats.js';

export async function failover(url: string, ttlMs: number, rounds: number): Promise<number[]> {
  const schema = `bench_failover_${Date.now().toString(36)}`;
  const survivor = await PostgresSessionLeases.open(url, { schema, maxConnections: 2 });
  const holderScript = fileURLToPath(new URL('../test/fixtures/lease-holder.ts', import.meta.url));
  const times: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const sessionId = `s${round}`;
      const holder = spawn(
        process.execPath,
        ['--import', 'tsx', holderScript, url, schema, sessionId, String(ttlMs)],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      const [line] = (await once(createInterface({ input: holder.stdout! }), 'line')) as [string];
      if (!line.startsWith('held')) throw new Error(`the holder said: ${line}`);
      // Kill at a random point of the renewal cycle.
      await new Promise((resolve) => setTimeout(resolve, ttlMs + Math.random() * ttlMs));
      const killedAt = performance.now();
      holder.kill('SIGKILL');
      for (;;) {
        const result = await survivor.acquire(sessionId, 'survivor', ttlMs);
        if (result.acquired) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      times.push(performance.now() - killedAt);
    }
  } finally {
    await survivor.close();
  }
  return times;
}

export function printFailover(times: readonly number[], ttlMs: number): void {
  const worst = Math.max(...times);
  console.log(
    `\nOwnership failover (lease ${ttlMs} ms, renewed every ${Math.floor(ttlMs / 3)} ms; SIGKILL → survivor holds the session), ${times.length} rounds:`,
  );
  console.log(
    `  p50 ${fixed(quantile(times, 0.5), 0)} ms  max ${fixed(worst, 0)} ms  ratio max/lease ${fixed(worst / ttlMs)}×  target < lease + 1000 ms: ${worst < ttlMs + 1000 ? 'met' : 'NOT met'}`,
  );
}
