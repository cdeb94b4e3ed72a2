import type { AgentRequestMap, ClientNotificationMap, ClientRequestMap } from '@acp-kit/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, type ClientConnection } from '../../src/client/index.js';
import { Connection, type Diagnostic } from '../../src/rpc/index.js';
import { createInProcessPair } from '../../src/transports/index.js';

type AgentSide = Connection<AgentRequestMap, Record<string, never>, ClientRequestMap, ClientNotificationMap>;

let closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers) close();
  closers = [];
});

/** A client and a bare agent-side connection over an in-memory ndjson pair. */
function pair(options: ConstructorParameters<typeof Client>[1]): { client: Client; agent: AgentSide } {
  const [clientTransport, agentTransport] = createInProcessPair();
  const connection: ClientConnection = new Connection(clientTransport);
  const client = new Client(connection, options);
  const agent: AgentSide = new Connection(agentTransport);
  agent.listen();
  closers.push(
    () => client.close(),
    () => agent.close(),
  );
  return { client, agent };
}

const form = {
  mode: 'form' as const,
  sessionId: 'sess_1',
  message: 'Name?',
  requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } } },
};

describe('answering the agent’s requests', () => {
  it('answers elicitation/create cancel when the client has no elicitation callback', async () => {
    const { agent } = pair({ info: { name: 't', version: '0' } });
    expect(await agent.sendRequest('elicitation/create', form)).toEqual({ action: 'cancel' });
  });

  it('answers a withdrawn elicitation cancel at once and aborts the callback’s signal', async () => {
    let seen: AbortSignal | undefined;
    const { agent } = pair({
      info: { name: 't', version: '0' },
      onElicitation: (_request, { signal }) => {
        seen = signal;
        return new Promise(() => {}); // the user never answers
      },
    });
    const controller = new AbortController();
    const answer = agent.sendRequest('elicitation/create', form, { signal: controller.signal });
    await expect.poll(() => seen).toBeDefined();
    controller.abort();
    // The callback never answers: the client answers for it, at once.
    expect(await answer).toEqual({ action: 'cancel' });
    await expect.poll(() => seen?.aborted).toBe(true);
  });

  it('answers -32603 when the elicitation callback throws, and the connection goes on', async () => {
    const diagnostics: Diagnostic[] = [];
    const { client, agent } = pair({
      info: { name: 't', version: '0' },
      onElicitation: () => {
        throw new Error('form renderer crashed');
      },
    });
    client.connection.onDiagnostic((d) => diagnostics.push(d));
    await expect(agent.sendRequest('elicitation/create', form)).rejects.toMatchObject({ code: -32603 });
    expect(diagnostics.map((d) => d.kind)).toEqual(['request-handler-error']);
    expect(
      await agent.sendRequest('session/request_permission', {
        sessionId: 'sess_1',
        title: 'Allow?',
        options: [{ optionId: 'y', name: 'Yes', kind: 'allow_once' }],
      }),
    ).toEqual({ outcome: { outcome: 'cancelled' } });
  });

  it('passes elicitation/complete to its callback', async () => {
    const completed: string[] = [];
    const { agent } = pair({
      info: { name: 't', version: '0' },
      onElicitationComplete: ({ elicitationId }) => completed.push(elicitationId),
    });
    await agent.sendNotification('elicitation/complete', { elicitationId: 'elic-9' });
    await expect.poll(() => completed).toEqual(['elic-9']);
  });
});
