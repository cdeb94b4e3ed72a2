/**
 * The receipt rule against a scripted v1 agent in process, where the test decides when each v1
 * message is sent: the v2 prompt stays unanswered until there is evidence of insertion.
 */
import type { ContentBlock } from '@acp-kit/schema';
import { Client, type ClientConnection, Connection, createInProcessPair, RpcError } from '@acp-kit/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type {
  AgentNotificationMap,
  AgentRequestMap,
  ClientNotificationMap,
  ClientRequestMap,
} from '../src/generated/v1/methods.js';
import type * as V1 from '../src/generated/v1/types.js';
import { V1AgentBridge, v1SchemaValidator } from '../src/index.js';
import { UpdateLog } from './helpers.js';

type ScriptedV1Agent = Connection<
  AgentRequestMap,
  AgentNotificationMap,
  ClientRequestMap,
  ClientNotificationMap
>;

const hello: [ContentBlock] = [{ type: 'text', text: 'hello' }];

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

/** A v1 agent whose prompt turns the test ends by hand. */
function setup() {
  const [agentSide, bridgeToAgent] = createInProcessPair();
  const agent: ScriptedV1Agent = new Connection(agentSide, { validator: v1SchemaValidator });
  const prompts: { params: V1.PromptRequest; end: ReturnType<typeof deferred<V1.PromptResponse>> }[] = [];
  const promptArrived: (() => void)[] = [];
  agent.onRequest('initialize', () => ({ protocolVersion: 1, agentCapabilities: { loadSession: false } }));
  const created: V1.NewSessionRequest[] = [];
  agent.onRequest('session/new', (params) => {
    created.push(params);
    // Some agents announce their commands at once: this one even before its answer is written.
    queueMicrotask(() => {
      agent
        .sendNotification('session/update', {
          sessionId: 's1',
          update: {
            sessionUpdate: 'available_commands_update',
            availableCommands: [{ name: 'plan', description: 'Plan' }],
          },
        })
        .catch(() => undefined);
    });
    return { sessionId: 's1' };
  });
  agent.onRequest('session/prompt', (params) => {
    const end = deferred<V1.PromptResponse>();
    prompts.push({ params, end });
    promptArrived.shift()?.();
    return end.promise;
  });
  agent.listen();
  const bridge = new V1AgentBridge({ agent: bridgeToAgent });
  const [clientSide, bridgeToClient] = createInProcessPair();
  bridge.serve(bridgeToClient);
  const connection: ClientConnection = new Connection(clientSide);
  const log = new UpdateLog().tap(connection);
  const client = new Client(connection, { info: { name: 't', version: '1' } });
  cleanup.push(() => {
    client.close();
    agent.close();
  });
  const nextPrompt = () => new Promise<void>((resolve) => promptArrived.push(resolve));
  const say = (update: V1.SessionUpdate) =>
    agent.sendNotification('session/update', { sessionId: 's1', update });
  return { client, agent, prompts, nextPrompt, say, log, created };
}

describe('insertion evidence from a v1 agent', () => {
  it('leaves the v2 prompt unanswered while the v1 agent has said nothing about it', async () => {
    const { client, prompts, nextPrompt, say } = setup();
    await client.initialize();
    const sessionId = await client.newSession('/tmp');
    const arrived = nextPrompt();
    let answered = false;
    const receipt = client.prompt(sessionId, hello).then((id) => {
      answered = true;
      return id;
    });
    await arrived;
    // A full round trip through the bridge after the prompt reached the v1 agent.
    await client.newSession('/tmp');
    expect(answered).toBe(false);
    await say({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } });
    const messageId = await receipt;
    expect(messageId).toMatch(/^m1_/);
    prompts[0]?.end.resolve({ stopReason: 'end_turn' });
  });

  it('takes the v1 prompt response as evidence when the turn had no updates', async () => {
    const { client, prompts, nextPrompt, log } = setup();
    await client.initialize();
    const sessionId = await client.newSession('/tmp');
    const arrived = nextPrompt();
    const receipt = client.prompt(sessionId, hello);
    await arrived;
    prompts[0]?.end.resolve({ stopReason: 'max_tokens' });
    const messageId = await receipt;
    await log.idle(0);
    // The commands the agent announces right after session/new are not part of the turn.
    expect(log.updates.filter((u) => u.sessionUpdate !== 'available_commands_update')).toEqual([
      { sessionUpdate: 'user_message', messageId, content: hello },
      { sessionUpdate: 'state_update', state: 'running' },
      { sessionUpdate: 'state_update', state: 'idle', stopReason: 'max_tokens' },
    ]);
  });

  it('reports a v1 error after insertion as idle with stopReason error (the receipt is already out)', async () => {
    const { client, prompts, nextPrompt, say, log } = setup();
    await client.initialize();
    const sessionId = await client.newSession('/tmp');
    const arrived = nextPrompt();
    const receipt = client.prompt(sessionId, hello);
    await arrived;
    await say({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'partial' } });
    await receipt;
    prompts[0]?.end.reject(new RpcError(-32603, 'model failed'));
    await log.idle(0);
    expect(log.updates.at(-1)).toMatchObject({
      sessionUpdate: 'state_update',
      state: 'idle',
      stopReason: 'error',
      error: { code: expect.any(Number), message: expect.stringContaining('model failed') },
    });
  });

  it('ends a turn the v2 client cancelled as cancelled, even if the v1 agent finishes it with end_turn', async () => {
    const { client, agent, prompts, nextPrompt, say, log } = setup();
    const cancelSeen = deferred<void>();
    agent.onNotification('session/cancel', () => cancelSeen.resolve());
    await client.initialize();
    const sessionId = await client.newSession('/tmp');
    const arrived = nextPrompt();
    const receipt = client.prompt(sessionId, hello);
    await arrived;
    await say({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'partial' } });
    await receipt;
    await client.cancel(sessionId);
    await cancelSeen.promise; // the bridge accepted the cancel and passed it on
    // The v1 agent answers end_turn anyway, as one that finished before reading the cancel would.
    prompts[0]?.end.resolve({ stopReason: 'end_turn' });
    await log.idle(0);
    expect(log.updates.at(-1)).toEqual({
      sessionUpdate: 'state_update',
      state: 'idle',
      stopReason: 'cancelled',
    });
  });

  it('replaces the submitted content with the echo, which is authoritative', async () => {
    const { client, prompts, nextPrompt, say } = setup();
    await client.initialize();
    const sessionId = await client.newSession('/tmp');
    const arrived = nextPrompt();
    const receipt = client.prompt(sessionId, hello);
    await arrived;
    await say({
      sessionUpdate: 'user_message_chunk',
      messageId: 'native-1',
      content: { type: 'text', text: 'hello ' },
    });
    await say({
      sessionUpdate: 'user_message_chunk',
      messageId: 'native-1',
      content: { type: 'text', text: '(expanded)' },
    });
    expect(await receipt).toBe('native-1');
    prompts[0]?.end.resolve({ stopReason: 'end_turn' });
    await new Promise<void>((resolve) => {
      const stop = client.store.subscribe(() => {
        if (
          client.store.snapshot(sessionId).state.state === 'idle' &&
          client.store.snapshot(sessionId).state.completedTurns > 0
        ) {
          stop();
          resolve();
        }
      });
    });
    const user = client.store.snapshot(sessionId).messages.find((m) => m.kind === 'user_message');
    expect(user?.content).toEqual([
      { type: 'text', text: 'hello ' },
      { type: 'text', text: '(expanded)' },
    ]);
  });

  it('keeps an update the v1 agent sends before the bridge has opened the session', async () => {
    const { client, log } = setup();
    await client.initialize();
    await client.newSession('/tmp');
    await log.waitFor((u) => u.sessionUpdate === 'available_commands_update');
    expect(log.updates[0]).toEqual({
      sessionUpdate: 'available_commands_update',
      availableCommands: [{ type: 'command', name: 'plan', description: 'Plan' }],
    });
  });

  it('passes an MCP server of a transport v1 does not know on to the v1 agent unchanged', async () => {
    const { client, created } = setup();
    await client.initialize();
    await client.newSession('/tmp', [
      { type: 'stdio', name: 'files', command: '/bin/files' },
      { type: '_vendor/socket', name: 'sock' },
      { type: 'websocket', name: 'live', url: 'ws://127.0.0.1:7000/mcp' },
    ] as never);
    expect(created[0]?.mcpServers).toEqual([
      { name: 'files', command: '/bin/files', args: [], env: [] },
      { type: '_vendor/socket', name: 'sock' },
      { type: 'websocket', name: 'live', url: 'ws://127.0.0.1:7000/mcp' },
    ]);
  });

  it('fails a held prompt with a clear error when the v1 agent goes away', async () => {
    const { client, agent, nextPrompt } = setup();
    await client.initialize();
    const sessionId = await client.newSession('/tmp');
    const arrived = nextPrompt();
    const first = client.prompt(sessionId, hello);
    await arrived;
    const second = client.prompt(sessionId, hello);
    agent.close();
    await expect(first).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('v1 agent unavailable'),
    });
    await expect(second).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('v1 agent unavailable'),
    });
  });
});
