/**
 * The v1 wire codec in process: an SDK `Agent` (v2) served to a v1 client on the same transport a
 * v2 client would use, chosen by `initialize`. The client here is a raw v1 JSON-RPC peer over real
 * ndjson streams, so every byte the codec writes is what a v1 editor would read.
 */
import { Agent, Connection, createInProcessPair, negotiateAgentVersion, schemaValidator } from '@acp-kit/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { type BridgeLoss, createV1WireCodec, v1SchemaValidator, v1WireCodec } from '../src/index.js';

type Wire = {
  id?: unknown;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** An agent behind the negotiating transport, and a raw v1 peer talking to it. */
function setup(
  onPrompt: ConstructorParameters<typeof Agent>[0]['onPrompt'],
  more: Partial<ConstructorParameters<typeof Agent>[0]> = {},
  codec = v1WireCodec,
) {
  const agent = new Agent({ info: { name: 'codec-agent', version: '1.0.0' }, onPrompt, ...more });
  const [agentSide, clientSide] = createInProcessPair();
  const served = new Connection(negotiateAgentVersion(agentSide, { codecs: [codec] }), {
    validator: schemaValidator,
  });
  agent.serve(served);
  // The v1 peer checks every answer and notification against the v1 schema.
  const raw = new Connection(clientSide, { validator: v1SchemaValidator });
  const wire: Wire[] = [];
  raw.onMessage((direction, message) => {
    if (direction === 'in') wire.push(message as Wire);
  });
  raw.onUnhandledNotification(() => undefined);
  raw.listen();
  closers.push(() => raw.close());
  const initialize = () => raw.sendRequest('initialize', { protocolVersion: 1, clientCapabilities: {} });
  return { agent, raw, wire, initialize, writeRaw: (text: string) => clientSide.writer.write(text) };
}

describe('v1WireCodec behind negotiateAgentVersion', () => {
  it('answers v1 params that fail the v1 schema with -32602, a pointer and what was expected; the connection keeps working', async () => {
    const { raw, initialize } = setup((prompt) => void prompt.insert());
    await initialize();
    const { sessionId } = (await raw.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] })) as {
      sessionId: string;
    };
    const refused = await raw
      .sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text: 7 }] })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toMatchObject({
      code: -32602,
      data: { pointer: '/params/prompt/0/text', expected: expect.any(String) },
    });
    expect((refused as Error).message).toMatch(/^Invalid params at \/params\/prompt\/0\/text: expected /);
    // v1 requires mcpServers on session/new; v2 does not — the v1 schema decides on a v1 connection.
    const missing = await raw.sendRequest('session/new', { cwd: '/tmp' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(missing).toMatchObject({ code: -32602, data: { pointer: '/params/mcpServers' } });
    expect(await raw.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] })).toHaveProperty('sessionId');
  });

  it('answers a batch on a v1 connection with one -32600 (id null)', async () => {
    const { wire, initialize, writeRaw } = setup((prompt) => void prompt.insert());
    await initialize();
    await writeRaw(
      JSON.stringify([
        { jsonrpc: '2.0', id: 99, method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } },
      ]),
    );
    await expect.poll(() => wire.find((m) => m.id === null)).toMatchObject({ error: { code: -32600 } });
    expect(wire.find((m) => m.id === 99)).toBeUndefined();
  });

  it('answers a v1 prompt whose turn failed with the JSON-RPC error the agent reported (v1 has no error stop reason)', async () => {
    const { raw, initialize } = setup(async (prompt, { session }) => {
      await prompt.insert();
      await session.running();
      await session.idle('error' as never, undefined, { code: -32050, message: 'model unavailable' });
    });
    await initialize();
    const { sessionId } = (await raw.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] })) as {
      sessionId: string;
    };
    const failed = await raw
      .sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failed).toMatchObject({ code: -32050, message: 'model unavailable' });
  });

  it('answers a prompt the agent refused before insertion with that error, and one refused as cancelled with stopReason cancelled', async () => {
    let calls = 0;
    const { raw, initialize } = setup((prompt) => {
      calls += 1;
      if (calls === 1) prompt.reject({ code: -32011, message: 'busy' });
      else prompt.reject({ code: -32800, message: 'cancelled before insertion' });
    });
    await initialize();
    const { sessionId } = (await raw.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] })) as {
      sessionId: string;
    };
    const prompt = () =>
      raw.sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'a' }] }).then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
    expect(await prompt()).toMatchObject({ error: { code: -32011, message: 'busy' } });
    expect(await prompt()).toEqual({ result: { stopReason: 'cancelled' } });
  });

  it("keeps each session's mode option: session/set_mode sets that option whatever its configId, and a bad mode points at /params/modeId", async () => {
    const modeOption = (configId: string, values: string[]) => ({
      type: 'select' as const,
      configId,
      name: 'Mode',
      category: 'mode',
      currentValue: values[0]!,
      options: values.map((value) => ({ value, name: value })),
    });
    const { raw, wire, initialize } = setup((prompt) => void prompt.insert(), {
      onNewSession: (request) => ({
        configOptions:
          request.cwd === '/a'
            ? [modeOption('approach', ['plan', 'build'])]
            : [
                { type: 'boolean', configId: 'verbose', name: 'Verbose', currentValue: false },
                modeOption('persona', ['terse', 'chatty']),
              ],
      }),
    });
    await initialize();
    type NewAnswer = { sessionId: string; modes?: { currentModeId: string } };
    const a = (await raw.sendRequest('session/new', { cwd: '/a', mcpServers: [] })) as NewAnswer;
    const b = (await raw.sendRequest('session/new', { cwd: '/b', mcpServers: [] })) as NewAnswer;
    expect(a.modes?.currentModeId).toBe('plan');
    expect(b.modes?.currentModeId).toBe('terse');
    expect(await raw.sendRequest('session/set_mode', { sessionId: a.sessionId, modeId: 'build' })).toEqual(
      {},
    );
    expect(await raw.sendRequest('session/set_mode', { sessionId: b.sessionId, modeId: 'chatty' })).toEqual(
      {},
    );
    const refused = await raw
      .sendRequest('session/set_mode', { sessionId: a.sessionId, modeId: 'chatty' })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toMatchObject({ code: -32602, data: { pointer: '/params/modeId' } });
    const modeUpdates = (sessionId: string) =>
      wire
        .filter((m) => m.method === 'session/update')
        .map(
          (m) => m.params as { sessionId: string; update: { sessionUpdate: string; currentModeId?: string } },
        )
        .filter((p) => p.sessionId === sessionId && p.update.sessionUpdate === 'current_mode_update')
        .map((p) => p.update.currentModeId);
    await expect.poll(() => modeUpdates(a.sessionId)).toEqual(['build']);
    await expect.poll(() => modeUpdates(b.sessionId)).toEqual(['chatty']);
    const loaded = (await raw.sendRequest('session/load', {
      sessionId: a.sessionId,
      cwd: '/a',
      mcpServers: [],
    })) as {
      modes?: { currentModeId: string };
    };
    expect(loaded.modes?.currentModeId).toBe('build');
  });

  it('sends the commands a new or loaded session has as an available_commands_update (a v1 answer has no place for them): after the session/new answer, before the session/load answer', async () => {
    const commands = [{ type: 'command' as const, name: 'plan', description: 'Make a plan' }];
    const { raw, wire, initialize } = setup(
      async (prompt) => {
        await prompt.insert();
      },
      {
        onNewSession: () => ({ availableCommands: commands }),
      },
    );
    await initialize();
    const { sessionId } = (await raw.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] })) as {
      sessionId: string;
    };
    const v1Commands = {
      sessionUpdate: 'available_commands_update',
      availableCommands: [{ name: 'plan', description: 'Make a plan' }],
    };
    const commandUpdates = () =>
      wire.filter(
        (m) =>
          m.method === 'session/update' &&
          (m.params as { update: { sessionUpdate: string } }).update.sessionUpdate ===
            'available_commands_update',
      );
    await expect.poll(() => commandUpdates().length).toBe(1);
    const answered = wire.findIndex(
      (m) => (m.result as { sessionId?: string } | undefined)?.sessionId === sessionId,
    );
    expect(wire.indexOf(commandUpdates()[0]!)).toBeGreaterThan(answered);
    expect((commandUpdates()[0]!.params as { update: unknown }).update).toEqual(v1Commands);

    const before = wire.length;
    await raw.sendRequest('session/load', { sessionId, cwd: '/tmp', mcpServers: [] });
    const loadAnswer = wire.findIndex((m, i) => i >= before && m.result !== undefined);
    const loaded = commandUpdates()
      .map((m) => wire.indexOf(m))
      .filter((i) => i >= before);
    expect(loaded).toHaveLength(1);
    expect(loaded[0]).toBeLessThan(loadAnswer);
  });

  it('leaves a command whose input type v1 does not know out of the list it sends, and reports it to onLoss', async () => {
    const losses: BridgeLoss[] = [];
    const { raw, wire, initialize } = setup(
      async (prompt, { session }) => {
        await prompt.insert();
        await session.running();
        await session.setAvailableCommands([
          { type: 'command', name: 'plan', description: 'Make a plan' },
          { type: 'command', name: 'attach', description: 'Attach', input: { type: 'file' } } as never,
        ]);
        await session.idle('end_turn');
      },
      {},
      createV1WireCodec({ onLoss: (loss) => losses.push(loss) }),
    );
    await initialize();
    const { sessionId } = (await raw.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] })) as {
      sessionId: string;
    };
    await raw.sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] });
    const commands = wire
      .filter((m) => m.method === 'session/update')
      .map((m) => (m.params as { update: { sessionUpdate: string } }).update)
      .filter((u) => u.sessionUpdate === 'available_commands_update');
    expect(commands).toEqual([
      {
        sessionUpdate: 'available_commands_update',
        availableCommands: [{ name: 'plan', description: 'Make a plan' }],
      },
    ]);
    expect(losses).toEqual([
      {
        sessionId,
        in: 'available_commands_update',
        pointer: '/availableCommands/1',
        reason: 'command "attach": AvailableCommandInput type "file" has no v1 form',
      },
    ]);
  });
});
