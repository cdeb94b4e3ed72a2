/**
 * #30 item 4: a v1 client, through the in-process v1 codec in front of an SDK agent, gets the
 * background work of a turn after its prompt was answered, in the forms v1 has: a background tool
 * call as its v1 tool call updates, a background terminal as a v1 tool call of kind `execute`
 * (`terminal-<terminalId>`) carrying its output and ending with its exit status. The background
 * list itself has no v1 form and is reported to `onLoss`.
 */
import { spawn } from 'node:child_process';
import {
  Agent,
  Connection,
  createInProcessPair,
  negotiateAgentVersion,
  schemaValidator,
  streamTransport,
  type TerminalHandle,
  type ToolCallHandle,
} from '@acp-kit/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type * as V1 from '../src/generated/v1/types.js';
import { type BridgeLoss, createV1WireCodec, v1SchemaValidator } from '../src/index.js';
import { bridgeArgs } from './helpers.js';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

type Seen = { answer?: unknown; update?: V1.SessionUpdate };

async function until(predicate: () => boolean): Promise<void> {
  for (let i = 0; !predicate(); i++) {
    if (i > 400) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** An SDK agent whose prompt leaves a terminal and a tool call running in the background, behind the v1 codec. */
function backgroundBehindCodec(
  afterIdle?: (terminal: TerminalHandle) => Promise<void>,
  { embed = false }: { embed?: boolean } = {},
) {
  const handles: { terminal?: TerminalHandle; tool?: ToolCallHandle } = {};
  const agent = new Agent({
    info: { name: 'background-v1', version: '1.0.0' },
    onPrompt: async (prompt, { session }) => {
      await prompt.insert();
      await session.running();
      const terminal = await session.terminal({ command: 'sleep 1' }, { cancellable: true });
      await terminal.output('tick 0\n');
      const tool = await session.toolCall({ title: 'Subtask: tidy', kind: 'think', status: 'in_progress' });
      await terminal.runInBackground();
      // Embedded: the tool call shows the terminal, and the work is listed once, as its terminal.
      if (embed) await tool.content({ type: 'terminal', terminalId: terminal.terminalId });
      else await tool.runInBackground();
      const idle = session.idle('end_turn');
      // Output written right behind the idle, in the same batch of the session's log writer.
      const more = afterIdle?.(terminal);
      await idle;
      await more;
      Object.assign(handles, { terminal, tool });
    },
  });
  const losses: BridgeLoss[] = [];
  const [agentSide, clientSide] = createInProcessPair();
  agent.serve(
    new Connection(
      negotiateAgentVersion(agentSide, { codecs: [createV1WireCodec({ onLoss: (l) => losses.push(l) })] }),
      { validator: schemaValidator },
    ),
  );
  const v1 = new Connection(clientSide, { validator: v1SchemaValidator });
  closers.push(() => v1.close());
  const seen: Seen[] = [];
  const invalid: unknown[] = [];
  v1.onDiagnostic((d) => invalid.push(d));
  v1.onNotification('session/update', (params) => {
    seen.push({ update: (params as { update: V1.SessionUpdate }).update });
  });
  // Everything the v1 client received, in wire order (a response resolves its promise only later).
  const wire: { id?: unknown; method?: string; params?: { update?: { toolCallId?: string } } }[] = [];
  v1.onMessage((direction, message) => {
    if (direction === 'in') wire.push(message as (typeof wire)[number]);
  });
  v1.listen();
  return { v1, handles, losses, seen, invalid, wire };
}

describe('background work to a v1 client (in-process codec)', () => {
  it('sends a background terminal as a v1 execute tool call and a background tool call as its updates, after the prompt was answered', async () => {
    const { v1, handles, losses, seen, invalid } = backgroundBehindCodec();
    await v1.sendRequest('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = (await v1.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] })) as {
      sessionId: string;
    };
    const answer = await v1.sendRequest('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'go' }],
    });
    seen.push({ answer });
    expect(answer).toEqual({ stopReason: 'end_turn' });
    await until(() => handles.tool !== undefined);
    const { terminal, tool } = handles as Required<typeof handles>;
    await terminal.output('tick 1\n');
    await tool.content({ type: 'content', content: { type: 'text', text: 'step 1' } });
    await tool.update({ status: 'completed' });
    await terminal.exit({ exitCode: 0 });
    const toolCallId = `terminal-${terminal.terminalId}`;
    await until(() =>
      seen.some(
        (s) =>
          (s.update as { status?: string } | undefined)?.status === 'completed' &&
          (s.update as { toolCallId?: string }).toolCallId === toolCallId,
      ),
    );

    const answeredAt = seen.findIndex((s) => s.answer !== undefined);
    const after = seen
      .slice(answeredAt + 1)
      .map((s) => s.update as V1.SessionUpdate & Record<string, unknown>);
    const ofTerminal = after.filter((u) => u.toolCallId === toolCallId);
    // The terminal's first update after the list named it announces it, with its output so far.
    expect(ofTerminal).toEqual([
      {
        sessionUpdate: 'tool_call',
        toolCallId,
        title: 'sleep 1',
        kind: 'execute',
        status: 'in_progress',
        content: [{ type: 'content', content: { type: 'text', text: 'tick 0\ntick 1\n' } }],
      },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId,
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: 'tick 0\ntick 1\n' } }],
      },
    ]);
    const ofTool = after.filter((u) => u.toolCallId === tool.toolCallId);
    expect(
      ofTool.map((u) => [
        u.sessionUpdate,
        u.status ?? null,
        (u.content as unknown[] | undefined)?.length ?? null,
      ]),
    ).toEqual([
      ['tool_call_update', null, 1],
      ['tool_call_update', 'completed', null],
    ]);
    // Before the answer the v1 client saw the tool call but nothing of the foreground terminal.
    expect(
      seen.slice(0, answeredAt).some((s) => (s.update as { toolCallId?: string })?.toolCallId === toolCallId),
    ).toBe(false);
    // What v1 cannot carry: the background list (on every state update that had one), and the
    // terminal's updates before it ran in the background.
    const lost = losses.map((l) => `${l.in} ${l.pointer}`);
    expect(lost).toContain('state_update /background');
    expect(lost.filter((l) => l.startsWith('terminal'))).toEqual([
      'terminal_update ',
      'terminal_output_chunk ',
    ]);
    expect(losses.every((l) => l.sessionId === sessionId)).toBe(true);
    expect(invalid).toEqual([]);
  });

  it('shows a terminal a tool call embeds in that tool call: its output in the card, no second card of its own', async () => {
    const { v1, handles, seen, invalid } = backgroundBehindCodec(undefined, { embed: true });
    await v1.sendRequest('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = (await v1.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] })) as {
      sessionId: string;
    };
    await v1.sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] });
    await until(() => handles.tool !== undefined);
    const { terminal, tool } = handles as Required<typeof handles>;
    await terminal.output('tick 1\n');
    await terminal.exit({ exitCode: 0 });
    await tool.update({ status: 'completed' });
    await until(() =>
      seen.some(
        (s) =>
          (s.update as { toolCallId?: string } | undefined)?.toolCallId === tool.toolCallId &&
          (s.update as { status?: string }).status === 'completed',
      ),
    );
    const updates = seen.flatMap((s) =>
      s.update === undefined ? [] : [s.update as V1.SessionUpdate & Record<string, unknown>],
    );
    // One card: nothing under the terminal's own ID.
    expect(updates.filter((u) => String(u.toolCallId).startsWith('terminal-'))).toEqual([]);
    const ofTool = updates.filter((u) => u.toolCallId === tool.toolCallId);
    const texts = ofTool.map((u) =>
      ((u.content as { type: string; content?: { text?: string } }[] | undefined) ?? []).map((c) =>
        c.type === 'content' ? c.content?.text : c.type,
      ),
    );
    // The embedded terminal's item is its output as text, growing with each output; never a v1
    // terminal item (v1 terminals are the client's own, made by terminal/create).
    expect(texts.flat()).not.toContain('terminal');
    expect(texts).toContainEqual(['tick 0\n']);
    expect(texts).toContainEqual(['tick 0\ntick 1\n']);
    expect(ofTool.at(-1)).toMatchObject({ sessionUpdate: 'tool_call_update', status: 'completed' });
    expect(invalid).toEqual([]);
  });

  it('answers the prompt before the updates that follow its idle, even when they are written with it', async () => {
    const { v1, handles, wire } = backgroundBehindCodec(async (terminal) => {
      await terminal.output('tick 1\n');
      await terminal.exit({ exitCode: 0 });
    });
    await v1.sendRequest('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = (await v1.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] })) as {
      sessionId: string;
    };
    const promptAt = wire.length;
    const answer = await v1.sendRequest('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'go' }],
    });
    expect(answer).toEqual({ stopReason: 'end_turn' });
    await until(() => handles.terminal !== undefined);
    const toolCallId = `terminal-${handles.terminal!.terminalId}`;
    const ofTerminal = (m: (typeof wire)[number]) => m.params?.update?.toolCallId === toolCallId;
    await until(() => wire.filter(ofTerminal).length === 2);
    const answeredAt = wire.findIndex((m, i) => i >= promptAt && m.method === undefined);
    expect(wire.findIndex(ofTerminal)).toBeGreaterThan(answeredAt);
  });

  it('shows only the tail of a flooding background terminal, and says so once', async () => {
    const { v1, handles, losses, seen } = backgroundBehindCodec();
    await v1.sendRequest('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = (await v1.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] })) as {
      sessionId: string;
    };
    await v1.sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] });
    await until(() => handles.terminal !== undefined);
    const terminal = handles.terminal!;
    for (let i = 0; i < 40; i++) await terminal.output(`${String(i).padStart(4, '0')}${'x'.repeat(1019)}\n`);
    await terminal.exit({ exitCode: 3 });
    const toolCallId = `terminal-${terminal.terminalId}`;
    await until(() => seen.some((s) => (s.update as { status?: string })?.status === 'failed'));
    const last = seen.filter((s) => (s.update as { toolCallId?: string })?.toolCallId === toolCallId).at(-1)!
      .update as { content: { content: { text: string } }[] };
    const shown = last.content[0]!.content.text;
    expect(shown.length).toBe(16 * 1024);
    expect(shown.endsWith(`0039${'x'.repeat(1019)}\n`)).toBe(true);
    expect(losses.filter((l) => l.pointer === '/output')).toHaveLength(1);
  });
});

describe('background work to a v1 client (process-level bridge)', () => {
  it('answers the prompt before the background terminal, written right behind the idle, reaches the v1 client as a tool call', async () => {
    const child = spawn(process.execPath, bridgeArgs('v1', 'v2-agent.ts'), {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const v1 = new Connection(streamTransport(child.stdout!, child.stdin!), { validator: v1SchemaValidator });
    closers.push(() => {
      v1.close();
      child.kill('SIGTERM');
    });
    const wire: {
      method?: string;
      params?: { update?: { sessionUpdate: string; toolCallId?: string; status?: string } };
    }[] = [];
    v1.onMessage((direction, message) => {
      if (direction === 'in') wire.push(message as (typeof wire)[number]);
    });
    v1.onUnhandledNotification(() => undefined);
    v1.listen();
    await v1.sendRequest('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = (await v1.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] })) as {
      sessionId: string;
    };
    const promptAt = wire.length;
    expect(
      await v1.sendRequest('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'background' }] }),
    ).toEqual({
      stopReason: 'end_turn',
    });
    const ofTerminal = (m: (typeof wire)[number]) =>
      m.params?.update?.toolCallId?.startsWith('terminal-') === true;
    await until(() => wire.some((m) => ofTerminal(m) && m.params?.update?.status === 'completed'));
    const answeredAt = wire.findIndex((m, i) => i >= promptAt && m.method === undefined);
    expect(wire.findIndex(ofTerminal)).toBeGreaterThan(answeredAt);
    expect(
      wire.filter(ofTerminal).map((m) => [m.params?.update?.sessionUpdate, m.params?.update?.status]),
    ).toEqual([
      ['tool_call', 'in_progress'],
      ['tool_call_update', 'completed'],
    ]);
    // The loss line comes on stderr, a pipe of its own: wait for it rather than read it at once.
    await until(() => /left out state_update \/background for session/.test(stderr));
    expect(stderr).toMatch(/left out state_update \/background for session/);
  });
});
