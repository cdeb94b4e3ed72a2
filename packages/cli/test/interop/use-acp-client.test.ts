/**
 * #24 item 10: `use-acp` (npm, React hooks for ACP) drives `acp-kit agent --listen`. Its hook
 * `useAcpClient` connects with its own `WebSocketManager` (a browser `WebSocket`, every message sent
 * as a binary frame) and talks through the official ACP SDK's `ClientSideConnection` (ACP v1, which
 * acp-kit negotiates). The hook itself needs React; this test runs the same pieces the hook wires,
 * from the installed package: `WebSocketManager` (with the `ws` package standing in for the
 * browser's `WebSocket`, which Node 20 lacks) and use-acp's own copy of the ACP SDK.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket as NodeWebSocket } from 'ws';
import { type ListeningAgent, listeningAgent, requireBuild } from '../harness.js';

beforeAll(requireBuild);
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const require = createRequire(import.meta.url);
/** The installed use-acp package (its `exports` name only the React entry and package.json). */
const USE_ACP = dirname(require.resolve('use-acp/package.json'));
const ACP_SDK = createRequire(join(USE_ACP, 'package.json')).resolve('@agentclientprotocol/sdk');

// biome-ignore lint/suspicious/noExplicitAny: use-acp's untyped-at-this-path modules
type Loose = any;

/** A browser-like `WebSocket` that counts the frames it sends and receives, by kind. */
function countingWebSocket() {
  const frames = { sentBinary: 0, sentText: 0, receivedBinary: 0, receivedText: 0 };
  class CountingWebSocket extends NodeWebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols);
      this.on('message', (_data, isBinary) => {
        if (isBinary) frames.receivedBinary += 1;
        else frames.receivedText += 1;
      });
    }
    override send(data: unknown, ...rest: unknown[]): void {
      if (typeof data === 'string') frames.sentText += 1;
      else frames.sentBinary += 1;
      (super.send as (...args: unknown[]) => void)(data, ...rest);
    }
  }
  return { CountingWebSocket, frames };
}

describe('use-acp against acp-kit agent --listen', () => {
  it('initializes, creates a session and completes a prompt through use-acp’s WebSocketManager (binary frames in, text frames out)', async () => {
    // use-acp opens `new WebSocket(url)` with no subprotocol, so it cannot carry a token: --no-auth.
    const agent = await listeningAgent(['--no-auth']);
    cleanups.push(() => agent.stop());
    const { CountingWebSocket, frames } = countingWebSocket();
    const previous = (globalThis as Loose).WebSocket;
    (globalThis as Loose).WebSocket = CountingWebSocket;
    cleanups.push(() => {
      (globalThis as Loose).WebSocket = previous;
    });
    const { WebSocketManager } = (await import(
      pathToFileURL(join(USE_ACP, 'dist/connection/websocket-manager.js')).href
    )) as Loose;
    const { AcpClient } = (await import(
      pathToFileURL(join(USE_ACP, 'dist/client/acp-client.js')).href
    )) as Loose;
    const { ClientSideConnection, ndJsonStream, PROTOCOL_VERSION } = (await import(
      pathToFileURL(ACP_SDK).href
    )) as Loose;
    const errors: unknown[] = [];
    const manager = new WebSocketManager({
      url: agent.url,
      onConnectionStateChange: () => undefined,
      onError: (error: unknown) => errors.push(error),
      reconnectAttempts: 0,
    });
    cleanups.push(() => manager.disconnect());
    const { readable, writable } = await manager.connect();
    const updates: Loose[] = [];
    const connection = new ClientSideConnection(
      (peer: unknown) =>
        new AcpClient(peer, {
          onSessionNotification: (params: Loose) => updates.push(params.update),
          onRequestPermission: () => undefined,
          onRpcError: (error: unknown) => errors.push(error),
        }),
      ndJsonStream(writable, readable),
    );
    const initialized = await connection.initialize({
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    expect(initialized.protocolVersion).toBe(1);
    const { sessionId } = await connection.newSession({ cwd: '/tmp', mcpServers: [] });
    const answer = await connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'hello there' }] });
    const text = updates
      .filter((u) => u.sessionUpdate === 'agent_message_chunk')
      .map((u) => u.content.text)
      .join('');
    expect({ stopReason: answer.stopReason, text, errors }).toEqual({
      stopReason: 'end_turn',
      text: expect.stringContaining('hello there'),
      errors: [],
    });
    expect(frames.sentBinary).toBeGreaterThanOrEqual(3);
    expect(frames.sentText).toBe(0);
    expect(frames.receivedBinary).toBe(0);
    expect(frames.receivedText).toBeGreaterThan(0);
  });
});

/** The first group of `pattern` in the agent's stderr, once it has been written (at most 15 s). */
async function stderrMatch(agent: ListeningAgent, pattern: RegExp): Promise<string | undefined> {
  for (const started = Date.now(); Date.now() - started < 15_000; ) {
    const match = pattern.exec(agent.stderr());
    if (match) return match[1];
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return undefined;
}

describe('the browser hint of acp-kit agent --listen', () => {
  it('names the exact subprotocols a browser must offer, and offering them opens the connection', async () => {
    const agent = await listeningAgent();
    cleanups.push(() => agent.stop());
    // The hint is printed after the lines listeningAgent() waits for: wait for the hint itself.
    const hint = await stderrMatch(agent, /browsers offer the subprotocols (\[[^\]]*\])/);
    expect(hint).toBe('["acp-kit", "acp-kit.token.<token>"]');
    const protocols = (JSON.parse(hint!) as string[]).map((p) => p.replace('<token>', agent.token!));
    const socket = new NodeWebSocket(agent.url, protocols);
    const selected = await new Promise<string>((resolve, reject) => {
      socket.once('open', () => resolve(socket.protocol));
      socket.once('error', reject);
    });
    socket.close();
    expect(selected).toBe('acp-kit');
  });
});
