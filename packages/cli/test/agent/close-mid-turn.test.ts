/**
 * `session/close` during a turn ends the turn as `session/cancel` does before the close is
 * answered (#47 item 2, found by upstream's test kit; upstream's v2 draft, session-setup, "Closing
 * Active Sessions": MUST): the client is sent `state_update` idle with `stopReason: "cancelled"`,
 * then `{}`. On the wire, as raw ndjson: the reference agent with a turn running and with a turn
 * asked (its elicitation withdrawn), `bridge --serve v2` in front of an official-SDK v1 agent, and a
 * v1 client of the reference agent through the v1 codec (its prompt answered `cancelled` first).
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild } from '../harness.js';
import {
  bridgedV1Agent,
  closeRawWires,
  initializeV2,
  isStateOf,
  type RawWire,
  rawWire,
  type WireMessage,
} from '../raw-wire.js';

beforeAll(requireBuild);
afterEach(closeRawWires);

/** Where the first message `predicate` accepts is in what the wire received (-1: nowhere). */
const indexOf = (wire: RawWire, predicate: (m: WireMessage) => boolean): number =>
  wire.received.findIndex(predicate);

async function newSession(wire: RawWire): Promise<string> {
  const created = await wire.request('new', 'session/new', { cwd: '/tmp', mcpServers: [] });
  return created.result.sessionId as string;
}

/** Closes `sessionId` and checks the turn's cancelled idle came first, exactly once. */
async function expectClosedAfterCancelledIdle(wire: RawWire, sessionId: string): Promise<void> {
  const closed = await wire.request('close', 'session/close', { sessionId });
  expect(closed.result).toEqual({});
  const idles = wire.received.filter(isStateOf(sessionId, 'idle'));
  expect(idles.map((m) => m.params.update.stopReason)).toEqual(['cancelled']);
  expect(indexOf(wire, isStateOf(sessionId, 'idle'))).toBeLessThan(wire.received.indexOf(closed));
}

describe('session/close during a turn', () => {
  it('acp-kit agent: a running turn ends idle cancelled before the close is answered', async () => {
    // Each chunk of the reply waits 5 s: the turn is still running when the close arrives.
    const wire = rawWire(['agent', '--chunk-delay', '5000']);
    await initializeV2(wire);
    const sessionId = await newSession(wire);
    const prompt = { sessionId, prompt: [{ type: 'text', text: 'tell me a long story' }] };
    expect((await wire.request('prompt', 'session/prompt', prompt)).result.messageId).toBeTypeOf('string');
    await wire.next(isStateOf(sessionId, 'running'));
    await expectClosedAfterCancelledIdle(wire, sessionId);
  });

  it('acp-kit agent: an asked turn has its elicitation withdrawn and ends idle cancelled before the close is answered', async () => {
    const wire = rawWire(['agent']);
    await wire.request('init', 'initialize', {
      protocolVersion: 2,
      info: { name: 'raw-wire', version: '0.0.0' },
      capabilities: { elicitation: { form: {} } },
    });
    const sessionId = await newSession(wire);
    await wire.request('prompt', 'session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: '/ask Your name?' }],
    });
    const asked = await wire.next((m) => m.method === 'elicitation/create');
    await wire.next(isStateOf(sessionId, 'requires_action'));
    await expectClosedAfterCancelledIdle(wire, sessionId);
    const withdrawn = indexOf(
      wire,
      (m) => m.method === '$/cancel_request' && m.params.requestId === asked.id,
    );
    expect(withdrawn).toBeGreaterThan(-1);
    expect(withdrawn).toBeLessThan(indexOf(wire, (m) => m.id === 'close'));
  });

  it('bridge --serve v2: the v1 turn is cancelled and ends idle cancelled before the close is answered', async () => {
    const wire = bridgedV1Agent();
    await initializeV2(wire);
    await wire.request('login', 'auth/login', { methodId: 'token' });
    const sessionId = await newSession(wire);
    // `slow` streams until the v1 agent is cancelled.
    await wire.request('prompt', 'session/prompt', { sessionId, prompt: [{ type: 'text', text: 'slow' }] });
    await wire.next(isStateOf(sessionId, 'running'));
    await expectClosedAfterCancelledIdle(wire, sessionId);
  });

  it('the v1 codec of acp-kit agent: a v1 client’s prompt is answered cancelled before its close', async () => {
    const wire = rawWire(['agent', '--chunk-delay', '5000']);
    await wire.request(0, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
    const sessionId = await newSession(wire);
    wire.send({
      jsonrpc: '2.0',
      id: 'prompt',
      method: 'session/prompt',
      params: { sessionId, prompt: [{ type: 'text', text: 'tell me a long story' }] },
    });
    await wire.next(
      (m) => m.method === 'session/update' && m.params.update.sessionUpdate === 'agent_message_chunk',
    );
    const closed = await wire.request('close', 'session/close', { sessionId });
    expect(closed.result).toEqual({});
    const answered = await wire.next((m) => m.id === 'prompt');
    expect(answered.result.stopReason).toBe('cancelled');
    expect(wire.received.indexOf(answered)).toBeLessThan(wire.received.indexOf(closed));
  });
});
