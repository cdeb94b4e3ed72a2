/**
 * The v1 codec in process, for v1's unstable surface: an SDK `Agent` (v2) served to a raw v1
 * JSON-RPC peer. The idle that ends a turn gives the v1 PromptResponse its usage; `proxy/*` (which
 * the bridge does not carry) is answered -32601 and reported to onLoss; an extension method
 * crosses unchanged; a method that is neither v1 nor an extension (a v2-only one, say) is refused
 * by the codec instead of reaching the v2 agent, and such a notification is reported.
 */
import {
  Agent,
  type AgentOptions,
  Connection,
  createInProcessPair,
  negotiateAgentVersion,
  schemaValidator,
} from '@acp-kit/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type BridgeLoss,
  createV1WireCodec,
  describeLoss,
  serveV2AgentAsV1,
  v1SchemaValidator,
} from '../src/index.js';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** A raw v1 answer: its result, or the JSON-RPC error. */
type Answered = { result?: unknown; error?: { code: number; message: string; data?: unknown } };

/** An SDK agent behind the v1 codec (its losses collected), a raw v1 peer in front. */
function setup(onPrompt: AgentOptions['onPrompt'], more: Partial<AgentOptions> = {}) {
  const losses: BridgeLoss[] = [];
  const agent = new Agent({ info: { name: 'unstable-codec-agent', version: '1.0.0' }, onPrompt, ...more });
  const [agentSide, clientSide] = createInProcessPair();
  const served = new Connection(
    negotiateAgentVersion(agentSide, {
      codecs: [createV1WireCodec({ onLoss: (loss) => losses.push(loss) })],
    }),
    { validator: schemaValidator },
  );
  const reached: string[] = [];
  served.onMessage((direction, message) => {
    const method = (message as { method?: unknown }).method;
    if (direction === 'in' && typeof method === 'string') reached.push(method);
  });
  // An extension the agent serves: what it is given, back.
  served.onRequest('_vendor/echo' as never, (params: unknown) => ({ echoed: params }) as never);
  agent.serve(served);
  const raw = new Connection(clientSide, { validator: v1SchemaValidator });
  raw.onUnhandledNotification(() => undefined);
  raw.listen();
  closers.push(() => raw.close());
  const start = async () => {
    await raw.sendRequest('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = (await raw.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] })) as {
      sessionId: string;
    };
    return sessionId;
  };
  const call = (method: string, params: unknown) =>
    raw.sendRequest(method, params).then(
      (result): Answered => ({ result }),
      (error: unknown): Answered => ({ error: error as Answered['error'] }),
    );
  return { raw, losses, reached, start, call };
}

describe('the v1 codec and v1’s unstable surface', () => {
  it('puts the usage of the idle that ends the turn into the v1 PromptResponse, and none when the idle has none', async () => {
    let turns = 0;
    const { raw, start } = setup(async (prompt, { session }) => {
      await prompt.insert();
      await session.running();
      turns += 1;
      if (turns === 1)
        await session.idle('end_turn', {
          totalTokens: 30,
          inputTokens: 10,
          outputTokens: 15,
          thoughtTokens: 5,
        });
      else await session.idle('end_turn');
    });
    const sessionId = await start();
    const prompt = () =>
      raw.sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'count' }] });
    expect(await prompt()).toEqual({
      stopReason: 'end_turn',
      usage: { totalTokens: 30, inputTokens: 10, outputTokens: 15, thoughtTokens: 5 },
    });
    expect(await prompt()).toEqual({ stopReason: 'end_turn' });
  });

  it('answers proxy/initialize and proxy/successor -32601 saying the bridge does not carry proxy chains, and reports each call to onLoss', async () => {
    const { losses, reached, start, call } = setup((prompt) => void prompt.insert());
    await start();
    const init = await call('proxy/initialize', { protocolVersion: 1, clientCapabilities: {} });
    const successor = await call('proxy/successor', { method: 'session/new', params: {} });
    for (const answered of [init, successor]) {
      expect(answered.error?.code).toBe(-32601);
      expect(answered.error?.message).toMatch(
        /^Method not found: proxy\/\w+ does not cross the v1 bridge \(the bridge does not carry proxy chains across versions\)$/,
      );
    }
    expect(losses.map((loss) => [loss.in, loss.sessionId, loss.pointer])).toEqual([
      ['proxy/initialize', '', ''],
      ['proxy/successor', '', ''],
    ]);
    expect(losses[0]?.reason).toContain('does not carry proxy chains');
    expect(describeLoss(losses[0]!)).toMatch(/^left out proxy\/initialize \(the call\) on the connection: /);
    expect(reached.filter((method) => method.startsWith('proxy/'))).toEqual([]);
  });

  it('lets an extension method cross unchanged, and refuses a method that is neither v1 nor an extension without passing it on', async () => {
    const { losses, reached, start, call } = setup((prompt) => void prompt.insert());
    const sessionId = await start();
    expect(await call('_vendor/echo', { sessionId, n: 1 })).toEqual({
      result: { echoed: { sessionId, n: 1 } },
    });
    // tool_call/cancel is v2's: on a v1 connection it is not a method.
    const v2Only = await call('tool_call/cancel', { sessionId, toolCallId: 'call_1' });
    expect(v2Only.error).toMatchObject({
      code: -32601,
      message: 'Method not found: tool_call/cancel',
      data: { method: 'tool_call/cancel', reason: expect.stringContaining('is not a v1 method') },
    });
    expect(reached).toContain('_vendor/echo');
    expect(reached).not.toContain('tool_call/cancel');
    // A request is answered, so nothing is reported for it.
    expect(losses).toEqual([]);
  });

  it('reports a notification that is neither v1 nor an extension and does not pass it on, while v1 and extension notifications cross', async () => {
    const { raw, losses, reached, start } = setup((prompt) => void prompt.insert());
    const sessionId = await start();
    await raw.sendNotification('session/attach_later', { sessionId });
    await raw.sendNotification('_vendor/ping', { sessionId });
    // v1's mcp/message notification (an MCP server's progress, client to agent) is v1: it crosses.
    const progress = {
      serverId: 'tools-1',
      requestId: 'mcp-1',
      method: 'notifications/progress',
      params: { progressToken: 'mcp-1', progress: 1 },
    };
    await raw.sendNotification('mcp/message', progress);
    // Ordered after both notifications on the same connection.
    await raw.sendRequest('session/list', {});
    expect(reached).toContain('_vendor/ping');
    expect(reached).toContain('mcp/message');
    expect(reached).not.toContain('session/attach_later');
    expect(losses).toEqual([
      {
        sessionId,
        in: 'session/attach_later',
        pointer: '',
        reason:
          'session/attach_later is not a v1 method: a v1 connection carries v1 methods and extensions (_-prefixed)',
      },
    ]);
  });

  it('reports the state a v2 session/status answer carries at /result/state, v1 having no place for it, and nothing for a saved session', async () => {
    const { losses, start, call } = setup((prompt) => void prompt.insert(), {
      unstable: true,
      capabilities: { session: { status: {} } },
    });
    const sessionId = await start();
    expect(await call('session/status', { sessionId })).toEqual({ result: { status: 'open' } });
    expect(losses).toEqual([
      {
        sessionId,
        in: 'session/status',
        pointer: '/result/state',
        reason: expect.stringContaining('(state) is dropped'),
      },
    ]);
    expect(describeLoss(losses[0]!)).toMatch(
      new RegExp(`^left out session/status /result/state for session ${sessionId}: `),
    );
    // Closed, the session is only saved: a v2 answer without a state loses nothing.
    await call('session/close', { sessionId });
    expect(await call('session/status', { sessionId })).toEqual({ result: { status: 'saved' } });
    expect(losses).toHaveLength(1);
  });

  it('answers a v1 session/set_title without a title -32602 with the pointer, before the agent sees it', async () => {
    const { reached, start, call } = setup((prompt) => void prompt.insert(), {
      unstable: true,
      capabilities: { session: { title: {} } },
    });
    const sessionId = await start();
    const refused = await call('session/set_title', { sessionId });
    expect(refused.error).toMatchObject({
      code: -32602,
      message: 'Invalid params at /params/title: expected required property title',
      data: { pointer: '/params/title', expected: 'required property title' },
    });
    expect(reached).not.toContain('session/set_title');
    expect(await call('session/set_title', { sessionId, title: 'Ok' })).toEqual({ result: { title: 'Ok' } });
  });

  it('does the same through serveV2AgentAsV1 (the bridge process’s path): usage in the answer, proxy/* refused and reported', async () => {
    const losses: BridgeLoss[] = [];
    const agent = new Agent({
      info: { name: 'bridged-agent', version: '1.0.0' },
      async onPrompt(prompt, { session }) {
        await prompt.insert();
        await session.running();
        await session.idle('end_turn', { totalTokens: 3, inputTokens: 1, outputTokens: 2 });
      },
    });
    const [agentEnd, bridgeToAgent] = createInProcessPair();
    agent.serve(new Connection(agentEnd, { validator: schemaValidator }));
    const [clientSide, bridgeSide] = createInProcessPair();
    const bridge = serveV2AgentAsV1({
      agent: bridgeToAgent,
      client: bridgeSide,
      onLoss: (loss) => losses.push(loss),
    });
    const raw = new Connection(clientSide, { validator: v1SchemaValidator });
    raw.onUnhandledNotification(() => undefined);
    raw.listen();
    closers.push(() => {
      raw.close();
      bridge.close();
    });
    await raw.sendRequest('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = (await raw.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] })) as {
      sessionId: string;
    };
    expect(
      await raw.sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] }),
    ).toEqual({ stopReason: 'end_turn', usage: { totalTokens: 3, inputTokens: 1, outputTokens: 2 } });
    const refused = await raw
      .sendRequest('proxy/initialize', { protocolVersion: 1, clientCapabilities: {} })
      .then(
        () => undefined,
        (error: unknown) => error as { code: number; message: string },
      );
    expect(refused?.code).toBe(-32601);
    expect(refused?.message).toContain('does not carry proxy chains');
    expect(losses.map((loss) => loss.in)).toEqual(['proxy/initialize']);
  });
});

describe('a subagent’s traffic and a v1 client without the subagents capability', () => {
  it('is held back and reported while the client only knows the parent, and sent once the client loads the child itself', async () => {
    const { raw, losses, start } = setup(
      async (prompt, { session }) => {
        await prompt.insert();
        await session.running();
        const child = await session.subagent({ title: 'Helper' });
        await child.running();
        const work = await child.agentMessage();
        await work.chunk({ type: 'text', text: 'child at work' });
        await child.idle('end_turn');
        await session.idle('end_turn');
      },
      { unstable: true },
    );
    const seen: { sessionId: string; update: { sessionUpdate: string } }[] = [];
    raw.onNotification(
      'session/update' as never,
      ((params: (typeof seen)[number]) => {
        seen.push(params);
      }) as never,
    );
    const sessionId = await start();
    await raw.sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'delegate' }] });
    expect(seen.filter((n) => n.sessionId !== sessionId)).toEqual([]);
    const childLosses = losses.filter((loss) => loss.sessionId !== sessionId);
    expect(childLosses.map((loss) => loss.in)).toContain('agent_message_chunk');
    const childId = childLosses[0]!.sessionId;
    expect(childLosses[0]!.reason).toBe(
      `${childId} is a subagent of ${sessionId}: its updates go only to a v1 client that advertised subagents in its initialize`,
    );
    // Named by the client itself: its history replays to it.
    await raw.sendRequest('session/load', { sessionId: childId, cwd: '/tmp', mcpServers: [] });
    const replayed = seen.filter((n) => n.sessionId === childId).map((n) => n.update.sessionUpdate);
    expect(replayed).toContain('agent_message_chunk');
  });
});
