import type { ContentBlock } from '@acp-kit/schema';
import { describe, expect, it } from 'vitest';
import { Agent, type AgentSession } from '../../src/agent/index.js';
import { MemorySessionLog } from '../../src/history/index.js';
import { wire } from './harness.js';

/**
 * A session log whose acknowledgement of one chunk append is held back after the chunk is durable
 * (as a network database's ack can lag): `durable` resolves once it is stored, `acknowledge()` lets
 * the append resolve.
 */
class GatedHistory extends MemorySessionLog {
  #stored!: () => void;
  #ack!: () => void;
  readonly durable = new Promise<void>((resolve) => {
    this.#stored = resolve;
  });
  readonly #acked = new Promise<void>((resolve) => {
    this.#ack = resolve;
  });
  #appends = 0;
  acknowledge(): void {
    this.#ack();
  }
  override async append(
    ...args: Parameters<MemorySessionLog['append']>
  ): ReturnType<MemorySessionLog['append']> {
    const range = await super.append(...args);
    const chunk = args[1].some((entry) => entry.update.sessionUpdate === 'agent_message_chunk');
    if (chunk && ++this.#appends === 2) {
      this.#stored();
      await this.#acked;
    }
    return range;
  }
}

describe('replay while a reply is streaming', () => {
  it('gives a client resuming between a chunk’s append and its report each chunk exactly once', async () => {
    const history = new GatedHistory();
    let streamed: Promise<void> | undefined;
    const agent = new Agent({
      info: { name: 'race', version: '0.0.0' },
      history,
      onPrompt(prompt, { session }) {
        void prompt.insert().then(() => {
          streamed = (async (s: AgentSession) => {
            await s.running();
            const reply = await s.agentMessage();
            for (let i = 0; i < 3; i += 1) await reply.chunk({ type: 'text', text: `${i},` });
            await s.idle('end_turn');
          })(session);
        });
      },
    });
    const first = wire(agent);
    await first.client.initialize();
    const sessionId = await first.client.newSession('/repo');
    await first.client.prompt(sessionId, [{ type: 'text', text: 'go' }]);
    await history.durable; // chunk 1 is retained; its live update has not been sent yet

    const second = wire(agent);
    await second.client.initialize();
    // The resume starts while chunk 1 is retained but not yet reported; it completes after.
    const resumed = second.client.resume(sessionId, { cwd: '/repo', replay: true });
    await new Promise((resolve) => setTimeout(resolve, 20));
    history.acknowledge();
    await resumed;
    await streamed;
    await second.until((r) =>
      r.some((m) => m.type === 'update' && (m.params.update as { state?: string }).state === 'idle'),
    );

    const reply = (w: typeof first): readonly ContentBlock[] | undefined =>
      w.client.store.snapshot(sessionId).messages.find((m) => m.kind === 'agent_message')?.content;
    const expected = ['0,', '1,', '2,'].map((text) => ({ type: 'text', text }));
    expect(reply(first)).toEqual(expected);
    expect(reply(second)).toEqual(expected);
  });
});
