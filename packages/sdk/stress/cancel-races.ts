/**
 * `session/cancel` races at the SDK level, over a real connection: a cancel sent in the same
 * write as the prompt, one event-loop turn behind it, or mid-stream must end that turn with stop
 * reason `cancelled` (a lost cancel lets it run to `end_turn`); a cancel with nothing pending must
 * not cancel the next turn.
 */
import { Agent } from '../src/agent/index.js';
import { connectClient, tick, until, initialize } from './wire-client.js';

/** The moments a cancel is sent at, relative to its prompt. */
export const CANCEL_TIMINGS = ['at once', 'after a tick', 'mid-stream', 'nothing pending'] as const;

/** What {@link checkCancelRaces} observed. */
export interface CancelRacesReport {
  /** Per timing: turns run and their stop reasons. */
  timings: { timing: string; turns: number; stopReasons: Record<string, number>; wrong: number }[];
  /** Prompts that got no receipt, or turns that never ended. */
  stuck: number;
  samples: string[];
}

/** Runs `rounds` turns per timing on one session, each streaming up to `chunks` chunks. */
export async function checkCancelRaces(rounds: number, chunks = 200): Promise<CancelRacesReport> {
  const agent = new Agent({
    info: { name: 'cancel-races', version: '0' },
    async onPrompt(prompt, { session }) {
      await prompt.insert();
      await session.running();
      const signal = session.signal;
      const reply = await session.agentMessage({ retain: false });
      for (let i = 0; i < chunks && !signal.aborted; i++) {
        await reply.chunk({ type: 'text', text: 'x' });
        await tick();
      }
      await session.idle(signal.aborted ? 'cancelled' : 'end_turn');
    },
  });
  const session = await agent.createSession('/cancel-races');
  const client = connectClient(agent);
  await initialize(client);
  const report: CancelRacesReport = { timings: [], stuck: 0, samples: [] };
  const idles = () => client.idles();
  const prompt = { sessionId: session.id, prompt: [{ type: 'text', text: 'go' }] };
  const cancel = (): void => client.notify('session/cancel', { sessionId: session.id });

  for (const timing of CANCEL_TIMINGS) {
    const figures = { timing, turns: 0, stopReasons: {} as Record<string, number>, wrong: 0 };
    for (let round = 0; round < rounds; round++) {
      const before = idles().length;
      const chunksBefore = client.count('agent_message_chunk');
      if (timing === 'nothing pending') {
        cancel();
        for (let i = 0; i < 5; i++) await tick();
      }
      const receipt = client.request('session/prompt', prompt);
      if (timing === 'at once') cancel();
      else if (timing === 'after a tick') {
        await tick();
        cancel();
      } else if (timing === 'mid-stream') {
        await until(() => client.count('agent_message_chunk') > chunksBefore + 2);
        cancel();
      }
      let answered = false;
      void receipt.then(() => {
        answered = true;
      });
      const ended = await until(() => answered && idles().length > before, 200_000);
      if (!ended) {
        report.stuck++;
        if (report.samples.length < 5)
          report.samples.push(`cancel races: ${timing} turn ${round} never ended`);
        break;
      }
      const response = await receipt;
      const stopReason = idles()[before]?.stopReason ?? '(none)';
      figures.turns++;
      figures.stopReasons[stopReason] = (figures.stopReasons[stopReason] ?? 0) + 1;
      const want = timing === 'nothing pending' ? 'end_turn' : 'cancelled';
      if (stopReason !== want || response.error !== undefined) {
        figures.wrong++;
        if (report.samples.length < 5) {
          report.samples.push(
            `cancel races: ${timing} turn ${round} ended ${stopReason} (want ${want})${response.error ? ` with ${JSON.stringify(response.error)}` : ''}`,
          );
        }
      }
    }
    report.timings.push(figures);
  }
  client.connection.close();
  return report;
}
