import { type ChildProcessTransport, Connection, createInProcessPair } from '@acp-kit/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type {
  AgentNotificationMap,
  AgentRequestMap,
  ClientNotificationMap,
  ClientRequestMap,
} from '../src/generated/v1/methods.js';
import type * as V1 from '../src/generated/v1/types.js';
import { serveV2AgentAsV1, type V2AgentBridge, v1SchemaValidator } from '../src/index.js';
import { spawnFixture } from './helpers.js';

type V1Client = Connection<ClientRequestMap, ClientNotificationMap, AgentRequestMap, AgentNotificationMap>;

interface Rig {
  v1: V1Client;
  wire: { id?: unknown; method?: string; params?: unknown; result?: unknown }[];
  updates: V1.SessionUpdate[];
  bridge: V2AgentBridge;
  agent: ChildProcessTransport;
}

let rig: Rig | undefined;
/** Called once at the next update. */
const listeners: (() => void)[] = [];
afterEach(async () => {
  if (!rig) return;
  rig.v1.close();
  rig.bridge.close();
  await rig.agent.shutdown({ graceMs: 500 });
  rig = undefined;
});

async function start(onPermission?: (r: V1.RequestPermissionRequest) => V1.RequestPermissionResponse) {
  const agent = spawnFixture('v2-agent.ts');
  const [clientSide, bridgeSide] = createInProcessPair();
  const bridge = serveV2AgentAsV1({ agent, client: bridgeSide });
  const v1: V1Client = new Connection(clientSide, { validator: v1SchemaValidator });
  const updates: V1.SessionUpdate[] = [];
  const wire: Rig['wire'] = [];
  v1.onMessage((direction, message) => {
    if (direction === 'in') wire.push(message as Rig['wire'][number]);
  });
  v1.onNotification('session/update', (params) => {
    updates.push(params.update);
    for (const notify of listeners.splice(0)) notify();
  });
  v1.onRequest('session/request_permission', (params) =>
    onPermission ? onPermission(params) : { outcome: { outcome: 'cancelled' } },
  );
  v1.listen();
  rig = { v1, wire, updates, bridge, agent };
  const init = await v1.sendRequest('initialize', {
    protocolVersion: 1,
    clientInfo: { name: 'v1-test', version: '1' },
  });
  const { sessionId } = await v1.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] });
  return { v1, wire, updates, sessionId, init };
}

const prompt = (sessionId: string, text: string): V1.PromptRequest => ({
  sessionId,
  prompt: [{ type: 'text', text }],
});
const texts = (updates: V1.SessionUpdate[], kind: string) =>
  updates
    .filter((u) => u.sessionUpdate === kind)
    .map((u) => (u as V1.AgentMessageChunk).content)
    .map((c) => (c as V1.TextContent).text);

describe('a v2 agent served as v1', () => {
  it('answers initialize as v1 with loadSession', async () => {
    const { init } = await start();
    expect(init).toMatchObject({
      protocolVersion: 1,
      agentInfo: { name: 'v2-fixture' },
      agentCapabilities: { loadSession: true },
    });
  });

  it('keeps session/prompt open until idle, then answers {stopReason}; chunks and replacements become v1 chunks', async () => {
    const { v1, updates, sessionId } = await start();
    const result = await v1.sendRequest('session/prompt', prompt(sessionId, 'hello'));
    expect(result).toEqual({ stopReason: 'end_turn' });
    // No state updates, and the v1 client's own prompt is not echoed back to it.
    expect(updates.map((u) => u.sessionUpdate)).toEqual([
      'agent_message_chunk',
      'agent_message_chunk',
      'agent_message_chunk',
    ]);
    // The replacement extended the text, so only the new tail went out.
    expect(texts(updates, 'agent_message_chunk')).toEqual(['echo: ', 'hello', '!']);
    const ids = new Set(updates.map((u) => (u as V1.AgentMessageChunk).messageId));
    expect(ids.size).toBe(1);
  });

  it('sends a replacement that rewrites the text as a new v1 message', async () => {
    const { v1, updates, sessionId } = await start();
    await v1.sendRequest('session/prompt', prompt(sessionId, 'rewrite'));
    const chunks = updates.filter((u) => u.sessionUpdate === 'agent_message_chunk') as V1.AgentMessageChunk[];
    const first = chunks[0]?.messageId;
    expect(chunks.at(-1)).toEqual({
      sessionUpdate: 'agent_message_chunk',
      messageId: `${first}#1`,
      content: { type: 'text', text: 'something else entirely' },
    });
  });

  it("answers identical prompts one turn each, each answer after its own turn's chunks", async () => {
    const { v1, wire, updates, sessionId } = await start();
    const [a, b] = await Promise.all([
      v1.sendRequest('session/prompt', prompt(sessionId, 'same')),
      v1.sendRequest('session/prompt', prompt(sessionId, 'same')),
    ]);
    expect([a, b]).toEqual([{ stopReason: 'end_turn' }, { stopReason: 'end_turn' }]);
    const ids = new Set(updates.map((u) => (u as V1.AgentMessageChunk).messageId));
    expect(ids.size).toBe(2);
    expect(texts(updates, 'user_message_chunk')).toEqual([]);
    const [first] = ids;
    const lastChunkOfFirst = wire.findLastIndex(
      (m) =>
        m.method === 'session/update' &&
        (m.params as V1.SessionNotification).update.sessionUpdate === 'agent_message_chunk' &&
        ((m.params as V1.SessionNotification).update as V1.AgentMessageChunk).messageId === first,
    );
    const firstAnswer = wire.findIndex(
      (m) => m.result !== undefined && (m.result as { stopReason?: unknown }).stopReason !== undefined,
    );
    expect(lastChunkOfFirst).toBeGreaterThan(-1);
    expect(firstAnswer).toBeGreaterThan(lastChunkOfFirst);
  });

  it('passes a rejection through as the JSON-RPC error', async () => {
    const { v1, sessionId } = await start();
    await expect(v1.sendRequest('session/prompt', prompt(sessionId, 'fail'))).rejects.toMatchObject({
      code: -32602,
    });
    expect(await v1.sendRequest('session/prompt', prompt(sessionId, 'again'))).toEqual({
      stopReason: 'end_turn',
    });
  });

  it('answers a turn that failed after insertion with the JSON-RPC error from the idle update', async () => {
    const { v1, sessionId } = await start();
    await expect(v1.sendRequest('session/prompt', prompt(sessionId, 'boom'))).rejects.toMatchObject({
      code: -32603,
      message: 'boom: the model went away',
    });
  });

  it('ends a cancelled turn with stopReason cancelled', async () => {
    const { v1, updates, sessionId } = await start();
    const turn = v1.sendRequest('session/prompt', prompt(sessionId, 'slow'));
    if (updates.length === 0) await new Promise<void>((resolve) => listeners.push(resolve));
    await v1.sendNotification('session/cancel', { sessionId });
    expect(await turn).toEqual({ stopReason: 'cancelled' });
  });

  it('answers cancelled to a prompt cancelled right after it was sent, although the v2 agent ran that turn to end_turn', async () => {
    const { v1, sessionId } = await start();
    // This turn ignores its cancel signal: the v2 agent ends it end_turn whenever the cancel lands.
    const turn = v1.sendRequest('session/prompt', prompt(sessionId, 'quick'));
    await v1.sendNotification('session/cancel', { sessionId });
    expect(await turn).toEqual({ stopReason: 'cancelled' });
    // The session goes on: the next prompt is a normal turn.
    expect(await v1.sendRequest('session/prompt', prompt(sessionId, 'next'))).toEqual({
      stopReason: 'end_turn',
    });
  });

  it("stops the v2 agent's turn when session/cancel follows the prompt at once (the cancel reaches the inserted turn)", async () => {
    const { v1, updates, sessionId } = await start();
    const turn = v1.sendRequest('session/prompt', prompt(sessionId, 'long'));
    await v1.sendNotification('session/cancel', { sessionId });
    expect(await turn).toEqual({ stopReason: 'cancelled' });
    // Uncancelled, the turn streams 1500 chunks; cancelled, it stops early.
    expect(texts(updates, 'agent_message_chunk').length).toBeLessThan(1500);
  });

  it('asks the v1 client for permission about the tool call', async () => {
    const seen: V1.RequestPermissionRequest[] = [];
    const { v1, updates, sessionId } = await start((request) => {
      seen.push(request);
      return { outcome: { outcome: 'selected', optionId: 'yes' } };
    });
    expect(await v1.sendRequest('session/prompt', prompt(sessionId, 'permission'))).toEqual({
      stopReason: 'end_turn',
    });
    expect(seen[0]).toMatchObject({ sessionId, toolCall: { toolCallId: 'call-1', title: 'Look around' } });
    expect(updates[0]).toMatchObject({
      sessionUpdate: 'tool_call',
      toolCallId: 'call-1',
      title: 'Look around',
    });
    expect(texts(updates, 'agent_message_chunk')).toEqual(['permission: yes']);
  });

  it('maps session/load onto resume with replay: the history arrives as v1 chunks before the response', async () => {
    const { v1, updates, sessionId } = await start();
    await v1.sendRequest('session/prompt', prompt(sessionId, 'one'));
    updates.length = 0;
    await v1.sendRequest('session/load', { sessionId, cwd: '/tmp', mcpServers: [] });
    expect(texts(updates, 'user_message_chunk')).toEqual(['one']);
    expect(texts(updates, 'agent_message_chunk').join('')).toBe('echo: one!');
  });
});
