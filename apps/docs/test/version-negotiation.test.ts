import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Connection, connectWebSocket, spawnTransport, WebSocketHandshakeError } from '@acp-kit/sdk';
import { v1SchemaValidator, v1Validation } from '@acp-kit/v1-compat';
import { afterEach, describe, expect, it } from 'vitest';
import { clientForAnyAgent } from '../src/examples/guides/connect-any-version.ts';

// The version-negotiation guide shows serve-both-versions.ts, serve-both-versions-websocket.ts and
// connect-any-version.ts verbatim. Here the agent programs run as real child processes (over stdio,
// and listening on a loopback WebSocket), and each kind of client talks to them.
const AGENT = fileURLToPath(new URL('../src/examples/guides/serve-both-versions.ts', import.meta.url));
const WS_AGENT = fileURLToPath(
  new URL('../src/examples/guides/serve-both-versions-websocket.ts', import.meta.url),
);
const TSX_CLI = createRequire(import.meta.url).resolve('tsx/cli');
const V1_AGENT = fileURLToPath(new URL('./fixtures/v1-only-agent.ts', import.meta.url));

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Starts serve-both-versions.ts; `stderr` collects what it logs (the negotiated versions). */
function startAgent() {
  let stderr = '';
  const transport = spawnTransport(process.execPath, [TSX_CLI, AGENT], {
    name: 'serve-both-versions',
    onStderr: (text) => {
      stderr += text;
    },
  });
  cleanup.push(async () => {
    await transport.shutdown();
  });
  return { transport, stderr: () => stderr };
}

type Wire = { method?: string; params?: unknown };

describe('the version-negotiation guide: one agent program serving v1 and v2 clients', () => {
  it('serves a v2 client as v2 (the client negotiates 2 and completes a turn)', async () => {
    const agent = startAgent();
    const versions: number[] = [];
    const client = clientForAnyAgent(agent.transport, (v) => versions.push(v));
    cleanup.push(() => client.close());
    const init = await client.initialize();
    expect(init).toMatchObject({ protocolVersion: 2, info: { name: 'echo-agent' } });
    expect(versions).toEqual([2]);
    const sessionId = await client.newSession('/work/app');
    const end = await client.promptToEnd(sessionId, [{ type: 'text', text: 'Hello v2' }]);
    expect(end.stopReason).toBe('end_turn');
    const reply = client.store.snapshot(sessionId).messages.find((m) => m.kind === 'agent_message');
    expect(reply?.content).toEqual([{ type: 'text', text: 'Hello v2' }]);
    await expect.poll(() => agent.stderr()).toContain('speaking ACP v2');
  });

  it('serves a client asking for v1 as v1: v1 shapes only, the prompt answered {stopReason} at the end of the turn', async () => {
    const agent = startAgent();
    // A bare v1 client: plain JSON-RPC, every message the agent writes checked against the v1 schema.
    const v1 = new Connection(agent.transport, { validator: v1SchemaValidator });
    const received: Wire[] = [];
    v1.onMessage((direction, message) => {
      if (direction === 'in') received.push(message as Wire);
    });
    v1.listen();
    cleanup.push(() => v1.close());
    const init = (await v1.sendRequest('initialize', {
      protocolVersion: 1,
      clientCapabilities: {},
      clientInfo: { name: 'v1-client', version: '1.0.0' },
    })) as { protocolVersion: number; agentInfo?: { name: string } };
    expect(init.protocolVersion).toBe(1);
    expect(init.agentInfo?.name).toBe('echo-agent');
    const { sessionId } = (await v1.sendRequest('session/new', { cwd: '/work/app', mcpServers: [] })) as {
      sessionId: string;
    };
    const answer = await v1.sendRequest('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Hello v1' }],
    });
    expect(answer).toEqual({ stopReason: 'end_turn' });
    const updates = received.filter((m) => m.method === 'session/update');
    const kinds = updates.map(
      (m) => (m.params as { update: { sessionUpdate: string } }).update.sessionUpdate,
    );
    expect(kinds).toContain('agent_message_chunk');
    expect(kinds).not.toContain('state_update');
    expect(kinds).not.toContain('user_message');
    for (const message of updates) {
      expect(v1Validation.validateParams('session/update', message.params)?.ok, JSON.stringify(message)).toBe(
        true,
      );
    }
    await expect.poll(() => agent.stderr()).toContain('speaking ACP v1');
  });

  it('answers a version below both with -32022 and the supported versions, and stays usable', async () => {
    const agent = startAgent();
    const raw = new Connection(agent.transport);
    raw.listen();
    cleanup.push(() => raw.close());
    await expect(raw.sendRequest('initialize', { protocolVersion: 0 })).rejects.toMatchObject({
      code: -32022,
      data: { requested: 0, supported: [1, 2] },
    });
    const retry = (await raw.sendRequest('initialize', {
      protocolVersion: 2,
      info: { name: 'retry', version: '1.0.0' },
    })) as { protocolVersion: number };
    expect(retry.protocolVersion).toBe(2);
  });
});

describe('the version-negotiation guide: a v2 client in front of a v1-only agent', () => {
  it('keeps the v2 API over a real v1 agent process: receipt, user message under its ID, the reply, idle/end_turn', async () => {
    // A minimal v1 agent in its own process (test/fixtures/v1-only-agent.ts).
    const v1Agent = spawnTransport(process.execPath, [TSX_CLI, V1_AGENT], { name: 'v1-only-agent' });
    cleanup.push(async () => {
      await v1Agent.shutdown();
    });

    const versions: number[] = [];
    const client = clientForAnyAgent(v1Agent, (v) => versions.push(v));
    cleanup.push(() => client.close());
    const init = await client.initialize();
    expect(versions).toEqual([1]);
    expect(init).toMatchObject({ protocolVersion: 2, info: { name: 'v1-only-agent' } });
    const sessionId = await client.newSession('/work/app');
    const submission = client.submit(sessionId, [{ type: 'text', text: 'hello over v1' }]);
    const messageId = await submission.messageId;
    expect((await submission.turnEnd).stopReason).toBe('end_turn');
    const { messages, state } = client.store.snapshot(sessionId);
    expect(messages.find((m) => m.kind === 'user_message')).toMatchObject({
      messageId,
      content: [{ type: 'text', text: 'hello over v1' }],
    });
    expect(messages.find((m) => m.kind === 'agent_message')?.content).toEqual([
      { type: 'text', text: 'echo: hello over v1' },
    ]);
    expect(state.state).toBe('idle');
  });
});

/** SIGKILLs a process group, if any of it is left. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

/** Starts serve-both-versions-websocket.ts; resolves once it printed its URL and token file. */
async function startWebSocketAgent() {
  // Its own process group: the tsx CLI runs the example in a child process of its own, which a
  // SIGKILL of the CLI alone would leave running.
  const child = spawn(process.execPath, [TSX_CLI, WS_AGENT], {
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    stderr += text;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  cleanup.push(async () => {
    if (child.exitCode === null && child.signalCode === null) killGroup(child.pid);
    await exited;
    killGroup(child.pid); // whatever of the group outlived the CLI
  });
  const [, url, tokenFile] = await new Promise<RegExpExecArray>((resolve, reject) => {
    const check = (): void => {
      const match = /listening on (ws:\/\/\S+)\ntoken file: (\S+)\n/.exec(stderr);
      if (match) resolve(match);
    };
    child.stderr.on('data', check);
    void exited.then(({ code }) => reject(new Error(`agent exited (${code}) before listening: ${stderr}`)));
  });
  return {
    url: url as string,
    tokenFile: tokenFile as string,
    token: readFileSync(tokenFile as string, 'utf8').trim(),
    stderr: () => stderr,
    /** Sends SIGTERM and resolves with how the process ended. */
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('the version-negotiation guide: the same agent over WebSocket', () => {
  it('serves a v2 client and a plain v1 client connected at the same time, each in the version it asked for', async () => {
    const agent = await startWebSocketAgent();
    expect(agent.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);

    const versions: number[] = [];
    const v2 = clientForAnyAgent(await connectWebSocket(agent.url, { token: agent.token }), (v) =>
      versions.push(v),
    );
    cleanup.push(() => v2.close());
    // A bare v1 client: plain JSON-RPC over its own socket, every message checked against the v1 schema.
    const v1 = new Connection(await connectWebSocket(agent.url, { token: agent.token }), {
      validator: v1SchemaValidator,
    });
    const received: Wire[] = [];
    v1.onMessage((direction, message) => {
      if (direction === 'in') received.push(message as Wire);
    });
    v1.listen();
    cleanup.push(() => v1.close());

    const [init2, init1] = await Promise.all([
      v2.initialize(),
      v1.sendRequest('initialize', {
        protocolVersion: 1,
        clientCapabilities: {},
        clientInfo: { name: 'v1-client', version: '1.0.0' },
      }) as Promise<{ protocolVersion: number; agentInfo?: { name: string } }>,
    ]);
    expect(init2).toMatchObject({ protocolVersion: 2, info: { name: 'echo-agent' } });
    expect(versions).toEqual([2]);
    expect(init1.protocolVersion).toBe(1);
    expect(init1.agentInfo?.name).toBe('echo-agent');

    const sessionId = await v2.newSession('/work/app');
    const { sessionId: v1Session } = (await v1.sendRequest('session/new', {
      cwd: '/work/app',
      mcpServers: [],
    })) as { sessionId: string };
    const [end, answer] = await Promise.all([
      v2.promptToEnd(sessionId, [{ type: 'text', text: 'Hello over WebSocket, v2' }]),
      v1.sendRequest('session/prompt', {
        sessionId: v1Session,
        prompt: [{ type: 'text', text: 'Hello over WebSocket, v1' }],
      }),
    ]);
    expect(end.stopReason).toBe('end_turn');
    const reply = v2.store.snapshot(sessionId).messages.find((m) => m.kind === 'agent_message');
    expect(reply?.content).toEqual([{ type: 'text', text: 'Hello over WebSocket, v2' }]);
    expect(answer).toEqual({ stopReason: 'end_turn' });
    const updates = received.filter((m) => m.method === 'session/update');
    const chunks = updates.filter(
      (m) =>
        (m.params as { update: { sessionUpdate: string } }).update.sessionUpdate === 'agent_message_chunk',
    );
    expect(chunks.map((m) => (m.params as { update: { content: unknown } }).update.content)).toEqual([
      { type: 'text', text: 'Hello over WebSocket, v1' },
    ]);
    for (const message of updates) {
      const kind = (message.params as { update: { sessionUpdate: string } }).update.sessionUpdate;
      expect(['state_update', 'user_message']).not.toContain(kind);
      expect(v1Validation.validateParams('session/update', message.params)?.ok, JSON.stringify(message)).toBe(
        true,
      );
    }
    await expect.poll(() => agent.stderr()).toContain('a client speaks ACP v2');
    await expect.poll(() => agent.stderr()).toContain('a client speaks ACP v1');
  });

  it('keeps the WebSocket rules: the token in a 0600 file and never printed, 401 without it, 403 for a web page, the file removed on SIGTERM', async () => {
    const agent = await startWebSocketAgent();
    expect(statSync(agent.tokenFile).mode & 0o777).toBe(0o600);
    expect(agent.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(agent.stderr()).not.toContain(agent.token);

    await expect(connectWebSocket(agent.url)).rejects.toMatchObject({ status: 401 });
    const fromPage = connectWebSocket(agent.url, {
      token: agent.token,
      headers: { Origin: 'https://page.example' },
    });
    await expect(fromPage).rejects.toBeInstanceOf(WebSocketHandshakeError);
    await expect(fromPage).rejects.toMatchObject({ status: 403 });
    // With the token and no Origin (not a browser) the handshake succeeds.
    const transport = await connectWebSocket(agent.url, { token: agent.token });
    const raw = new Connection(transport);
    raw.listen();
    cleanup.push(() => raw.close());
    expect(
      (
        (await raw.sendRequest('initialize', {
          protocolVersion: 2,
          info: { name: 'raw', version: '1.0.0' },
        })) as { protocolVersion: number }
      ).protocolVersion,
    ).toBe(2);

    expect(await agent.stop()).toEqual({ code: 0, signal: null });
    expect(existsSync(agent.tokenFile)).toBe(false);
  });
});
