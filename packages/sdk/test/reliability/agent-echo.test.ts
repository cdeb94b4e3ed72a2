import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Agent } from '../../src/agent/index.js';
import { Client } from '../../src/client/index.js';
import { Connection } from '../../src/rpc/index.js';
import { createInProcessPair, streamTransport } from '../../src/transports/index.js';

/**
 * An inserted prompt is answered with its messageId and reported to every attached client as a
 * `user_message`. Both must happen, or neither: a receipt for a message the submitter never sees
 * is a lost message.
 */
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

async function pair(maxMessageBytes?: number) {
  const agent = new Agent({
    info: { name: 'echo', version: '0' },
    async onPrompt(prompt) {
      await prompt.insert();
    },
  });
  const [agentSide, clientSide] = createInProcessPair(maxMessageBytes ? { maxMessageBytes } : {});
  const agentConnection = new Connection(agentSide, maxMessageBytes ? { maxMessageBytes } : {});
  agent.serve(agentConnection as never);
  const client = new Client(new Connection(clientSide, maxMessageBytes ? { maxMessageBytes } : {}) as never, {
    info: { name: 'c', version: '0' },
  });
  closers.push(() => client.close());
  await client.initialize();
  const sessionId = await client.newSession('/w');
  return { agent, client, sessionId };
}

/** The prompt's outcome and whether the client ended up with a report for the receipt. */
async function outcome(client: Client, sessionId: string, prompt: never) {
  const submission = client.submit(sessionId, prompt);
  const settled = await submission.messageId.then(
    (id) => ({ id }),
    (error: unknown) => ({ error }),
  );
  // A follow-up prompt flushes anything still in flight on the ordered stream.
  await client.prompt(sessionId, [{ type: 'text', text: 'flush' }] as never).catch(() => undefined);
  const messages = client.store.snapshot(sessionId).messages;
  return { settled, messages, submission };
}

describe('receipts and reports stay together', () => {
  it('reports and answers an ordinary prompt', async () => {
    const { client, sessionId } = await pair();
    const { settled, messages } = await outcome(client, sessionId, [{ type: 'text', text: 'hi' }] as never);
    expect(settled).toHaveProperty('id');
    expect(
      messages.filter((m) => m.messageId === (settled as { id: string }).id && m.origin === 'agent'),
    ).toHaveLength(1);
  });

  /** An agent served over raw streams, so a test can write bytes a client's JSON.stringify would refuse. */
  async function rawAgent() {
    const agent = new Agent({
      info: { name: 'echo', version: '0' },
      async onPrompt(prompt) {
        await prompt.insert();
      },
    });
    const session = await agent.createSession('/w');
    const toAgent = new PassThrough();
    const fromAgent = new PassThrough();
    const connection = new Connection(streamTransport(toAgent, fromAgent));
    closers.push(() => connection.close());
    agent.serve(connection as never);
    const lines: Record<string, unknown>[] = [];
    fromAgent.setEncoding('utf8');
    let buffered = '';
    fromAgent.on('data', (chunk: string) => {
      buffered += chunk;
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      for (const part of parts) {
        const line = JSON.parse(part) as Record<string, unknown>;
        // The setup's own `initialize` answer stays out of the lines the tests read.
        if (line.id !== 'setup-initialize') lines.push(line);
      }
    });
    // Every connection completes `initialize` before its session methods (#13 item 9).
    toAgent.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 'setup-initialize',
        method: 'initialize',
        params: { protocolVersion: 2, info: { name: 'raw-client', version: '0' } },
      })}\n`,
    );
    const depth = 5000;
    const deepPrompt = (id: number): string =>
      `{"jsonrpc":"2.0","id":${id},"method":"session/prompt","params":{"sessionId":"${session.id}",` +
      `"prompt":[{"type":"text","text":"deep","_meta":{"d":${'['.repeat(depth)}${']'.repeat(depth)}}}]}}\n`;
    const reportedReceipt = (id: number): boolean | undefined => {
      const answer = lines.find((l) => l.id === id) as { result?: { messageId: string } } | undefined;
      if (!answer?.result) return undefined;
      const { messageId } = answer.result;
      return lines.some(
        (l) => (l.params as { update?: { messageId?: string } } | undefined)?.update?.messageId === messageId,
      );
    };
    return { session, toAgent, lines, deepPrompt, reportedReceipt };
  }

  // A content block nested 5 000 levels deep parses and validates (it sits under `_meta`), but its
  // `user_message` report cannot be serialized: the prompt must be rejected before anything is
  // retained or acknowledged, and the submitter must stay attached.
  it('never answers a prompt with a messageId whose user_message could not be reported', async () => {
    const { session, toAgent, lines, deepPrompt, reportedReceipt } = await rawAgent();
    toAgent.write(deepPrompt(1));
    await vi.waitFor(() => expect(lines.some((l) => l.id === 1)).toBe(true), { timeout: 10_000 });
    expect(reportedReceipt(1)).not.toBe(false);
    expect(session.attachedCount).toBe(1);
  });

  // Found by the fuzzer: a failed report must not detach the client and swallow the reports of
  // ordinary prompts in flight on that connection.
  it('reports an ordinary prompt sent right after one whose report cannot be serialized', async () => {
    const { session, toAgent, lines, deepPrompt, reportedReceipt } = await rawAgent();
    toAgent.write(deepPrompt(1));
    toAgent.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: session.id, prompt: [{ type: 'text', text: 'ordinary' }] } })}\n`,
    );
    await vi.waitFor(() => expect(lines.some((l) => l.id === 2)).toBe(true), { timeout: 10_000 });
    expect(reportedReceipt(2)).toBe(true);
  });

  // A prompt just under the line limit has a `user_message` report a few dozen bytes longer than the
  // request (wrapper and messageId): it must be rejected (nothing retained) rather than acknowledged.
  it('rejects (or reports) a prompt whose user_message would exceed the line limit', async () => {
    const limit = 64 * 1024;
    const { agent, client, sessionId } = await pair(limit);
    const overhead = JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'session/prompt',
      params: { sessionId, prompt: [{ type: 'text', text: '' }] },
    }).length;
    const prompt = [{ type: 'text', text: 'x'.repeat(limit - overhead - 8) }] as never;
    const { settled, messages } = await outcome(client, sessionId, prompt);
    if ('id' in settled) {
      expect(messages.some((m) => m.messageId === settled.id && m.origin === 'agent')).toBe(true);
    }
    expect(agent.sessions.get(sessionId)?.attachedCount).toBe(1);
  });
});
