import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/index.js';
import { Client } from '../../src/client/index.js';
import { negotiateClientVersion } from '../../src/codec/index.js';
import { Connection, noValidation } from '../../src/rpc/index.js';
import { schemaValidator } from '../../src/codec/index.js';
import { createInProcessPair } from '../../src/transports/index.js';

describe('negotiateClientVersion', () => {
  it('is the identity when the agent answers 2: the whole turn works and the version reported is 2', async () => {
    const agent = new Agent({
      info: { name: 'v2-agent', version: '1.0.0' },
      onPrompt: async (prompt, { session }) => {
        await prompt.insert();
        await session.running();
        await session.idle('end_turn');
      },
    });
    const [agentSide, clientSide] = createInProcessPair();
    agent.serve(new Connection(agentSide, { validator: schemaValidator }));
    const versions: number[] = [];
    const client = new Client(
      new Connection(negotiateClientVersion(clientSide, { onNegotiated: (v) => versions.push(v) }), {
        validator: schemaValidator,
      }),
      { info: { name: 'c', version: '1' } },
    );
    expect(await client.initialize()).toMatchObject({ protocolVersion: 2 });
    expect(versions).toEqual([2]);
    const sessionId = await client.newSession('/tmp');
    const submission = client.submit(sessionId, [{ type: 'text', text: 'hi' }]);
    expect(await client.store.turnEnd(submission.localId)).toMatchObject({ stopReason: 'end_turn' });
    client.close();
  });

  it('hands an older version without a codec to the client as it is (the client decides to disconnect)', async () => {
    const [agentSide, clientSide] = createInProcessPair();
    const old = new Connection(agentSide, { validator: noValidation });
    old.onRequest('initialize', () => ({ protocolVersion: 1, agentCapabilities: {} }));
    old.listen();
    const client = new Connection(negotiateClientVersion(clientSide), { validator: noValidation }).listen();
    expect(
      await client.sendRequest('initialize', { protocolVersion: 2, info: { name: 'c', version: '1' } }),
    ).toEqual({
      protocolVersion: 1,
      agentCapabilities: {},
    });
    client.close();
  });
});
