/**
 * Failover time at the agent level: an owning replica process (agent-replica.ts: an SDK agent with
 * PostgresSessionOwnership) runs a long turn; this process is a second replica (the same agent
 * setup) with a client following the session. The owner is killed with SIGKILL mid-turn; timed
 * from the kill until (1) the survivor took the session over and its client saw the turn end
 * `idle`/`error`, and (2) a new prompt on the survivor was answered with its receipt — the session
 * served again. Target: (2) under the lease time plus 1 s.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  Agent,
  type AgentConnection,
  Client,
  type ClientConnection,
  Connection,
  createInProcessPair,
} from '@acp-kit/sdk';
import { PostgresSessionLog, PostgresSessionOwnership } from '../src/index.js';
import { fixed, quantile } from './stats.js';

export interface FailoverRound {
  /** SIGKILL → the survivor's client saw the interrupted turn end. */
  readonly turnEndedMs: number;
  /** SIGKILL → a new prompt on the survivor was answered. */
  readonly servedMs: number;
}

export async function failover(url: string, leaseMs: number, rounds: number): Promise<FailoverRound[]> {
  const schema = `bench_failover_${Date.now().toString(36)}`;
  const log = await PostgresSessionLog.open(url, { schema, maxConnections: 4 });
  const ownership = await PostgresSessionOwnership.open(log, url, { leaseMs });
  const agent = new Agent({
    info: { name: 'bench-survivor', version: '0' },
    history: ownership.log,
    ownership,
    async onPrompt(prompt, { session }) {
      await prompt.insert();
      await session.running();
      await (await session.agentMessage()).chunk({ type: 'text', text: 'served again' });
      await session.idle('end_turn');
    },
  });
  const script = fileURLToPath(new URL('./agent-replica.ts', import.meta.url));
  const results: FailoverRound[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const owner = spawn(process.execPath, ['--import', 'tsx', script, url, schema, String(leaseMs)], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const [line] = (await once(createInterface({ input: owner.stdout! }), 'line')) as [string];
      const sessionId = line.replace(/^streaming /, '');
      // A client of the survivor follows the session.
      const [agentSide, clientSide] = createInProcessPair();
      agent.serve(new Connection(agentSide) as AgentConnection);
      const connection = new Connection(clientSide) as ClientConnection;
      let ended: (() => void) | undefined;
      const turnEnded = new Promise<void>((resolve) => {
        ended = resolve;
      });
      connection.onMessage((direction, message) => {
        const update = (message as { params?: { update?: { state?: string; stopReason?: string } } }).params
          ?.update;
        if (direction === 'in' && update?.state === 'idle' && update.stopReason === 'error') ended?.();
      });
      const client = new Client(connection, { info: { name: 'survivor-client', version: '0' } });
      await client.initialize();
      await client.resume(sessionId, { cwd: '/bench' });
      // Kill at a random point of the owner's renewal cycle.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * leaseMs));
      const exited = once(owner, 'exit');
      const killedAt = performance.now();
      owner.kill('SIGKILL');
      await turnEnded;
      const turnEndedMs = performance.now() - killedAt;
      await client.prompt(sessionId, [{ type: 'text', text: 'after the failover' }]);
      results.push({ turnEndedMs, servedMs: performance.now() - killedAt });
      client.close();
      await exited;
    }
  } finally {
    await ownership.close();
    await log.close();
  }
  return results;
}

export function printFailover(rounds: readonly FailoverRound[], leaseMs: number): void {
  const served = rounds.map((r) => r.servedMs);
  const ended = rounds.map((r) => r.turnEndedMs);
  const worst = Math.max(...served);
  console.log(
    `\nFailover at the agent level (lease ${leaseMs} ms; the owner of a session SIGKILLed mid-turn, a survivor replica with a client on the session), ${rounds.length} rounds:`,
  );
  console.log(
    `  SIGKILL → interrupted turn ended idle/error at the survivor's client: p50 ${fixed(quantile(ended, 0.5), 0)} ms  max ${fixed(Math.max(...ended), 0)} ms`,
  );
  console.log(
    `  SIGKILL → a new prompt answered by the survivor (served again): p50 ${fixed(quantile(served, 0.5), 0)} ms  max ${fixed(worst, 0)} ms  ratio max/lease ${fixed(worst / leaseMs)}×  target < lease + 1000 ms: ${worst < leaseMs + 1000 ? 'met' : 'NOT met'}`,
  );
}
