import { Agent, type AgentConnection, Connection, listenAcp, type Transport } from '@acp-kit/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { promptRemote, stayConnected } from '../src/examples/sdk/stay-connected.ts';

// The Remote agents guide shows this file verbatim (`?raw`); running it keeps the page true.
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('stay-connected.ts', () => {
  it('reconnects after the server drops the connection and resumes the session into the same store', async () => {
    const agent = new Agent({
      info: { name: 'guide-agent', version: '1.0.0' },
      async onPrompt(prompt, { session }) {
        await prompt.insert();
        const reply = await session.agentMessage();
        await reply.chunk({ type: 'text', text: 'hello' });
        await session.idle('end_turn');
      },
    });
    const connections: Transport[] = [];
    const server = await listenAcp({
      onConnection: (transport) => {
        connections.push(transport);
        agent.serve(new Connection(transport) as AgentConnection);
      },
    });
    cleanups.push(() => server.close());
    const lines: string[] = [];
    let reconnected!: () => void;
    const back = new Promise<void>((resolve) => {
      reconnected = resolve;
    });
    const remote = await stayConnected(server.url, server.token!, (line) => {
      lines.push(line);
      if (line.startsWith('reconnected')) reconnected();
    });
    cleanups.push(() => remote.close());
    expect(await promptRemote(remote, 'hi')).toBe('end_turn');
    const [sessionId] = remote.sessions;
    const before = remote.store.snapshot(sessionId!).messages;

    await connections[0]!.writer.close();
    await back;
    expect(lines[0]).toMatch(/^connection lost \(connection closed: ACP over HTTP: .*\); reconnecting$/);
    expect(lines[1]).toBe('reconnected after 1 attempt(s): 1 resumed, 0 lost');
    const after = remote.store.snapshot(sessionId!).messages;
    expect(after.map((m) => [m.kind, m.messageId, m.content])).toEqual(
      before.map((m) => [m.kind, m.messageId, m.content]),
    );
  });
});
