/**
 * A receiver keeps what it does not know: enum values and union variants from a later protocol
 * version (not only `_`-prefixed ones) pass acp-kit's v1 schema like v2's, and cross the bridge
 * unchanged in both directions. A kind the other version uses for something else cannot cross:
 * it is left out and reported (onLoss), never dropped silently.
 */
import type { SessionUpdate } from '@acp-kit/schema';
import { Connection, createInProcessPair } from '@acp-kit/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type {
  AgentNotificationMap,
  AgentRequestMap,
  ClientNotificationMap,
  ClientRequestMap,
} from '../src/generated/v1/methods.js';
import type * as V1 from '../src/generated/v1/types.js';
import { validate } from '../src/generated/v1/validate.js';
import { type BridgeLoss, serveV2AgentAsV1, v1SchemaValidator } from '../src/index.js';
import { spawnFixture, type V1Rig, v1Rig } from './helpers.js';

type V1Client = Connection<ClientRequestMap, ClientNotificationMap, AgentRequestMap, AgentNotificationMap>;

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('the v1 schema keeps unknown values like v2', () => {
  it('accepts an update of an unknown kind, a tool call with an unknown kind and status, an unknown content type and stop reason', () => {
    const later: [string, unknown][] = [
      [
        'SessionNotification',
        { sessionId: 's', update: { sessionUpdate: 'checkpoint', checkpointId: 'c1' } },
      ],
      [
        'SessionNotification',
        {
          sessionId: 's',
          update: {
            sessionUpdate: 'tool_call',
            toolCallId: 't',
            title: 'B',
            kind: 'browse',
            status: 'blocked',
          },
        },
      ],
      [
        'SessionNotification',
        {
          sessionId: 's',
          update: { sessionUpdate: 'agent_message_chunk', content: { type: 'video', uri: 'x' } },
        },
      ],
      ['PromptResponse', { stopReason: 'paused' }],
      ['RequestPermissionResponse', { outcome: { outcome: 'deferred' } }],
    ];
    for (const [definition, value] of later) {
      expect(validate(definition as V1.DefinitionName, value), JSON.stringify(value)).toMatchObject({
        ok: true,
      });
    }
    // A known kind is still checked in full.
    expect(
      validate('SessionNotification', { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk' } }),
    ).toMatchObject({ ok: false });
  });
});

describe('unknown values through the bridge', () => {
  it('carries a v1 agent’s unknown update kind, tool call kind and status, content type and stop reason to a v2 client unchanged', async () => {
    const losses: BridgeLoss[] = [];
    const rig: V1Rig = v1Rig({}, {}, { onLoss: (loss) => losses.push(loss) });
    closers.push(() => rig.close());
    await rig.client.initialize();
    const sessionId = await rig.client.newSession('/tmp');
    await rig.client.prompt(sessionId, [{ type: 'text', text: 'later' }]);
    await rig.log.idle(0);
    const updates = rig.log.updates;
    expect(updates).toContainEqual({
      sessionUpdate: 'checkpoint',
      checkpointId: 'c1',
      label: 'before the refactor',
    });
    expect(updates).toContainEqual(
      expect.objectContaining({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'call-later',
        kind: 'browse',
        status: 'blocked',
      }),
    );
    expect(updates).toContainEqual(
      expect.objectContaining({
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'video', uri: 'file:///demo.mp4' },
      }),
    );
    const idles = updates.filter(
      (u: SessionUpdate) => u.sessionUpdate === 'state_update' && u.state === 'idle',
    );
    expect(idles).toEqual([{ sessionUpdate: 'state_update', state: 'idle', stopReason: 'paused' }]);
    // The v1 agent's `state_update` is not v1's and would pose as v2's: left out, and reported.
    expect(losses).toEqual([
      {
        sessionId,
        in: 'state_update',
        pointer: '',
        reason: 'the v1 update kind "state_update" is not v1\'s, and v2 uses that name for another update',
      },
    ]);
  });

  it('carries a v2 agent’s unknown update kind, tool call kind and status and content type to a v1 client unchanged', async () => {
    const agent = spawnFixture('v2-agent.ts');
    const [clientSide, bridgeSide] = createInProcessPair();
    const losses: BridgeLoss[] = [];
    const bridge = serveV2AgentAsV1({ agent, client: bridgeSide, onLoss: (loss) => losses.push(loss) });
    const v1: V1Client = new Connection(clientSide, { validator: v1SchemaValidator });
    closers.push(() => {
      v1.close();
      bridge.close();
      return agent.shutdown({ graceMs: 500 });
    });
    const updates: V1.SessionUpdate[] = [];
    v1.onNotification('session/update', (params) => {
      updates.push(params.update);
    });
    v1.listen();
    await v1.sendRequest('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await v1.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] });
    expect(
      await v1.sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'later' }] }),
    ).toEqual({
      stopReason: 'end_turn',
    });
    expect(updates).toContainEqual({ sessionUpdate: 'checkpoint', checkpointId: 'c1' });
    expect(updates).toContainEqual(
      expect.objectContaining({
        sessionUpdate: 'tool_call',
        toolCallId: 'call-later',
        kind: 'browse',
        status: 'blocked',
      }),
    );
    expect(updates).toContainEqual(
      expect.objectContaining({
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'video', uri: 'file:///demo.mp4' },
      }),
    );
    // v2 `plan` is not v2's, and v1's plan is something else: left out, and reported.
    expect(updates.some((u) => u.sessionUpdate === 'plan')).toBe(false);
    await vi.waitFor(() =>
      expect(losses).toEqual([
        {
          sessionId,
          in: 'plan',
          pointer: '',
          reason: 'the v2 update kind "plan" is not v2\'s, and v1 uses that name for another update',
        },
      ]),
    );
  });
});
