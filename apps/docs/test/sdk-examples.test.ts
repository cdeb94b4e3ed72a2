import { type AgentConnection, type ClientConnection, Connection, createInProcessPair } from '@acp-kit/sdk';
import { describe, expect, it, vi } from 'vitest';
import { askOnce } from '../src/examples/sdk/ask-once.ts';
import { createEchoAgent } from '../src/examples/sdk/echo-agent.ts';

// The SDK pages show these files verbatim; running them here keeps the pages' claims true.
describe('the SDK examples the docs show', () => {
  it('echo agent and askOnce client: the prompt is reconciled by messageId and the reply streamed', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const [agentSide, clientSide] = createInProcessPair();
    const agentConnection: AgentConnection = new Connection(agentSide);
    createEchoAgent().serve(agentConnection);
    const clientConnection: ClientConnection = new Connection(clientSide);
    const messages = await askOnce(clientConnection, 'Hello');
    const inserted = log.mock.calls[0]?.[1];
    log.mockRestore();
    expect(messages.map((m) => [m.kind, m.origin])).toEqual([
      ['user_message', 'agent'],
      ['agent_message', 'agent'],
    ]);
    expect(messages[0]?.messageId).toBe(inserted);
    expect(messages[1]?.content).toEqual([{ type: 'text', text: 'Hello' }]);
  });
});

describe('the echo agent', () => {
  it('rejects a prompt without text, and the client shows the submission as failed', async () => {
    const { Client } = await import('@acp-kit/sdk');
    const [agentSide, clientSide] = createInProcessPair();
    createEchoAgent().serve(new Connection(agentSide) as AgentConnection);
    const client = new Client(new Connection(clientSide) as ClientConnection, {
      info: { name: 't', version: '1' },
    });
    await client.initialize();
    const sessionId = await client.newSession('/tmp');
    const submission = client.submit(sessionId, [
      { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' },
    ]);
    await expect(submission.messageId).rejects.toMatchObject({ code: -32602 });
    expect(client.store.snapshot(sessionId).messages.map((m) => m.origin)).toEqual(['local-failed']);
    client.close();
  });
});
