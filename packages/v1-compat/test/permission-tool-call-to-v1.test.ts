/**
 * A v1 permission request is always about a tool call: the v1 client must have been shown that
 * tool call (a v1 `tool_call`) before it is asked about it — through the in-process codec and the
 * v2-agent-as-v1 bridge alike, for a v2 request about a command (no tool call of its own) and
 * about a tool call the agent never reported.
 */
import type { RequestPermissionRequest } from '@acp-kit/schema';
import { Agent, Connection, createInProcessPair, negotiateAgentVersion, schemaValidator } from '@acp-kit/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { serveV2AgentAsV1, v1SchemaValidator, v1WireCodec } from '../src/index.js';

type Wire = { id?: unknown; method?: string; params?: Record<string, unknown>; result?: unknown };
type Asked = Omit<RequestPermissionRequest, 'sessionId'>;

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** An SDK agent whose every turn asks `asked`, then tells the answer in an agent message. */
function agentAsking(asked: Asked): Agent {
  return new Agent({
    info: { name: 'asking-agent', version: '1.0.0' },
    onPrompt: async (prompt, { session, client }) => {
      await prompt.insert();
      await session.running();
      const answer = await session.requestPermission(asked, client);
      const reply = await session.agentMessage();
      await reply.chunk({ type: 'text', text: `answer: ${answer.outcome.outcome}` });
      await session.idle('end_turn');
    },
  });
}

/** A raw v1 peer that allows every request; returns what it received, in order. */
async function promptAsV1(v1: Connection): Promise<Wire[]> {
  const wire: Wire[] = [];
  v1.onMessage((direction, message) => {
    if (direction === 'in') wire.push(message as Wire);
  });
  v1.onRequest('session/request_permission', (params) => ({
    outcome: {
      outcome: 'selected',
      optionId: (params as { options: { optionId: string }[] }).options[0]?.optionId,
    },
  }));
  v1.onUnhandledNotification(() => undefined);
  v1.listen();
  closers.push(() => v1.close());
  await v1.sendRequest('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = (await v1.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] })) as {
    sessionId: string;
  };
  await v1.sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] });
  return wire;
}

function throughCodec(asked: Asked): Promise<Wire[]> {
  const [agentSide, clientSide] = createInProcessPair();
  agentAsking(asked).serve(
    new Connection(negotiateAgentVersion(agentSide, { codecs: [v1WireCodec] }), {
      validator: schemaValidator,
    }),
  );
  return promptAsV1(new Connection(clientSide, { validator: v1SchemaValidator }));
}

function throughBridge(asked: Asked): Promise<Wire[]> {
  const [agentSide, bridgeAgentSide] = createInProcessPair();
  agentAsking(asked).serve(new Connection(agentSide, { validator: schemaValidator }));
  const [clientSide, bridgeClientSide] = createInProcessPair();
  const bridge = serveV2AgentAsV1({ agent: bridgeAgentSide, client: bridgeClientSide });
  closers.push(() => bridge.close());
  return promptAsV1(new Connection(clientSide, { validator: v1SchemaValidator }));
}

/** The tool call updates and the permission request, in arrival order, as `kind:toolCallId:status`. */
function toolCallStory(wire: Wire[]): string[] {
  return wire.flatMap((m) => {
    if (m.method === 'session/request_permission') {
      const toolCall = m.params?.toolCall as { toolCallId: string };
      return [`asked:${toolCall.toolCallId}`];
    }
    const update = m.params?.update as { sessionUpdate?: string; toolCallId?: string; status?: string };
    if (m.method !== 'session/update' || !update?.sessionUpdate?.startsWith('tool_call')) return [];
    return [`${update.sessionUpdate}:${update.toolCallId}:${update.status ?? '-'}`];
  });
}

const options: Asked['options'] = [
  { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
  { optionId: 'no', name: 'Reject', kind: 'reject_once' },
];

describe('a v2 permission request sent to a v1 client', () => {
  for (const [via, run] of [
    ['the in-process codec', throughCodec],
    ['the v2-agent-as-v1 bridge', throughBridge],
  ] as const) {
    it(`about a command: announces a tool call for it before asking, and settles it after the answer (${via})`, async () => {
      const wire = await run({
        title: 'Run the build?',
        subject: { type: 'command', command: 'npm run build', cwd: '/tmp' },
        options,
      });
      const story = toolCallStory(wire);
      expect(story).toHaveLength(3);
      const id = story[1]?.slice('asked:'.length);
      expect(story).toEqual([`tool_call:${id}:pending`, `asked:${id}`, `tool_call_update:${id}:completed`]);
      const announced = wire.find((m) => m.method === 'session/update')?.params?.update;
      expect(announced).toMatchObject({ sessionUpdate: 'tool_call', title: 'Run the build?' });
    });

    it(`about a tool call the agent never reported: announces that tool call before asking (${via})`, async () => {
      const wire = await run({
        title: 'Search?',
        subject: { type: 'tool_call', toolCall: { toolCallId: 'call-unseen', title: 'Search the web' } },
        options,
      });
      expect(toolCallStory(wire)).toEqual(['tool_call:call-unseen:pending', 'asked:call-unseen']);
    });
  }

  it('names each placeholder tool call once: two command requests in one session get two tool calls', async () => {
    let asks = 0;
    const agent = new Agent({
      info: { name: 'asking-twice', version: '1.0.0' },
      onPrompt: async (prompt, { session, client }) => {
        await prompt.insert();
        await session.running();
        for (const command of ['one', 'two']) {
          asks += 1;
          await session.requestPermission(
            { title: command, subject: { type: 'command', command, cwd: '/tmp' }, options },
            client,
          );
        }
        await session.idle('end_turn');
      },
    });
    const [agentSide, clientSide] = createInProcessPair();
    agent.serve(
      new Connection(negotiateAgentVersion(agentSide, { codecs: [v1WireCodec] }), {
        validator: schemaValidator,
      }),
    );
    const wire = await promptAsV1(new Connection(clientSide, { validator: v1SchemaValidator }));
    const asked = toolCallStory(wire).filter((s) => s.startsWith('asked:'));
    expect(asks).toBe(2);
    expect(new Set(asked).size).toBe(2);
  });
});
