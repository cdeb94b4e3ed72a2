/**
 * The v1 codec decides where a v1 prompt's turn ends by the session log's numbering: it is told the
 * seq of every live log entry it translates, and what reaches the connection outside the log (a
 * replay, the current state after a resume) has no place in that order, so it ends no turn.
 */
import { Agent, Connection, createInProcessPair, negotiateAgentVersion, schemaValidator } from '@acp-kit/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { v1SchemaValidator, v1WireCodec } from '../src/index.js';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('the v1 codec reads the log-numbered stream', () => {
  it('answers a v1 prompt at its own turn’s idle, not at the idle state a session/load on the same connection reports outside the log', async () => {
    let startTurn!: () => void;
    const turnMayStart = new Promise<void>((resolve) => {
      startTurn = resolve;
    });
    let inserted = false;
    const agent = new Agent({
      info: { name: 'queueing-agent', version: '1.0.0' },
      onPrompt(prompt, { session }) {
        void (async () => {
          // Inserted while idle: the prompt's turn is the next one, which starts later.
          await prompt.insert();
          inserted = true;
          await turnMayStart;
          await session.running();
          await session.idle('max_tokens');
        })();
      },
    });
    const [agentSide, clientSide] = createInProcessPair();
    agent.serve(
      new Connection(negotiateAgentVersion(agentSide, { codecs: [v1WireCodec] }), {
        validator: schemaValidator,
      }),
    );
    const raw = new Connection(clientSide, { validator: v1SchemaValidator });
    raw.onUnhandledNotification(() => undefined);
    raw.listen();
    closers.push(() => raw.close());
    await raw.sendRequest('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = (await raw.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] })) as {
      sessionId: string;
    };

    let answer: unknown;
    const answered = raw
      .sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] })
      .then((result) => {
        answer = result;
      });
    await expect.poll(() => inserted).toBe(true);
    // The load replays the conversation and ends with the session's current state: idle (the
    // inserted prompt's turn has not started). That state is not an entry of the log.
    await raw.sendRequest('session/load', { sessionId, cwd: '/tmp', mcpServers: [] });
    await tick(100);
    expect(answer).toBeUndefined();

    startTurn();
    await answered;
    expect(answer).toEqual({ stopReason: 'max_tokens' });
  });
});
