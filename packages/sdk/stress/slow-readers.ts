/**
 * Slow readers on one session: several clients stop reading — some live, some in the middle of a
 * replay — while a reading client's prompt streams. The reader's stream must complete, a third
 * client's prompt must get its receipt, and every slow client must be cut off — with the
 * documented -32098 (by its own queue, or by the session when live updates pile up behind its
 * replay) — instead of holding the session.
 */
import { Agent } from '../src/agent/index.js';
import { ErrorCodes } from '../src/rpc/index.js';
import { connectClient, tick, until, type WireClient, initialize } from './wire-client.js';

/** What {@link checkSlowReaders} observed. */
export interface SlowReadersReport {
  slowLive: number;
  slowMidReplay: number;
  /** Chunks the reading client received of those streamed. */
  readerChunks: number;
  streamed: number;
  readerTurnEnded: boolean;
  /** Whether the third client's prompt was answered with a receipt while the slow ones were attached. */
  thirdClientReceipt: boolean;
  /** Slow clients cut off, by the code their connection closed with; and those not cut off. */
  cutOff: Record<number, number>;
  notCutOff: string[];
}

/**
 * `slowLive` clients attach and stop reading; `slowMidReplay` clients ask for a replay of a
 * `history`-message session and stop reading at once; then a reader prompts for `chunks` chunks.
 */
export async function checkSlowReaders(options: {
  slowLive: number;
  slowMidReplay: number;
  chunks: number;
  history: number;
}): Promise<SlowReadersReport> {
  const chunkText = 'r'.repeat(512);
  const agent = new Agent({
    info: { name: 'slow-readers', version: '0' },
    maxHeldUpdates: 2_000,
    async onPrompt(prompt, { session }) {
      await prompt.insert();
      const long = (prompt.content[0] as { text?: string }).text === 'long';
      await session.running();
      const reply = await session.agentMessage();
      const count = long ? options.chunks : 1;
      for (let i = 0; i < count; i++) {
        await reply.chunk({ type: 'text', text: chunkText });
        if (i % 50 === 49) await tick();
      }
      await session.idle('end_turn');
    },
  });
  const session = await agent.createSession('/slow-readers');
  const init = initialize;
  const promptOf = (text: string) => ({ sessionId: session.id, prompt: [{ type: 'text', text }] });
  const cap = { maxQueuedBytes: 256 * 1024 };

  // History for the replays: short turns from a client that then leaves.
  const seeder = connectClient(agent);
  await init(seeder);
  for (let i = 0; i < options.history; i++) await seeder.request('session/prompt', promptOf('short'));
  seeder.connection.close();

  const slow: WireClient[] = [];
  for (let i = 0; i < options.slowLive; i++) {
    const client = connectClient(agent, cap);
    await init(client);
    await client.request('session/resume', { sessionId: session.id, cwd: '/slow-readers' });
    client.pause();
    slow.push(client);
  }
  for (let i = 0; i < options.slowMidReplay; i++) {
    const client = connectClient(agent, cap);
    await init(client);
    client.pause();
    void client.request('session/resume', {
      sessionId: session.id,
      cwd: '/slow-readers',
      replayFrom: { type: 'start' },
    });
    slow.push(client);
  }

  const reader = connectClient(agent);
  await init(reader);
  const idleCount = (client: WireClient): number => client.idles().length;
  const readerReceipt = reader.request('session/prompt', promptOf('long'));
  await readerReceipt;
  // The third client prompts while the long turn may still be streaming to the slow ones.
  const third = connectClient(agent);
  await init(third);
  let thirdAnswered = false;
  void third.request('session/prompt', promptOf('short')).then((response) => {
    thirdAnswered = response.error === undefined && response.result !== undefined;
  });
  const readerTurnEnded = await until(() => idleCount(reader) >= 2 && thirdAnswered, 400_000);
  await until(() => slow.every((client) => client.closedWith() !== undefined), 20_000);

  const notCutOff: string[] = [];
  const cutOff: Record<number, number> = {};
  slow.forEach((client, i) => {
    const reason = client.closedWith();
    const which = i < options.slowLive ? `live #${i}` : `mid-replay #${i - options.slowLive}`;
    // Only the documented -32098 counts: a local -32099 would mean the reason was lost on the way.
    if (reason?.code === ErrorCodes.OutgoingBufferFull) {
      cutOff[reason.code] = (cutOff[reason.code] ?? 0) + 1;
    } else notCutOff.push(`${which}: ${reason ? `${reason.code} ${reason.message}` : 'still attached'}`);
  });
  const report: SlowReadersReport = {
    slowLive: options.slowLive,
    slowMidReplay: options.slowMidReplay,
    readerChunks: reader.count('agent_message_chunk') - 1,
    streamed: options.chunks,
    readerTurnEnded,
    thirdClientReceipt: thirdAnswered,
    cutOff,
    notCutOff,
  };
  for (const client of [...slow, reader, third]) client.connection.close();
  return report;
}
