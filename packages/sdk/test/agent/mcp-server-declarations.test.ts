/**
 * The MCP servers a session request declares (`session/new`, `session/resume`, `session/fork`),
 * checked by the SDK's Agent before the application or the session sees them: a name given twice
 * and a transport the agent did not advertise in `capabilities.session.mcp` are refused -32602 at
 * their pointer. Over stdio, against the fixture agent running as a child process.
 */
import type { McpServer } from '@acp-kit/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { errorOf, spawnV2Agent, type V2Child } from './fixtures/spawn-v2-agent.js';

const children: V2Child[] = [];
async function agent(args: string[] = []): Promise<V2Child> {
  const child = await spawnV2Agent(args);
  children.push(child);
  return child;
}
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.stop()));
});

const stdio = (name: string): McpServer => ({ type: 'stdio', name, command: '/bin/mcp', args: [] });
const http = (name: string): McpServer => ({ type: 'http', name, url: 'https://mcp.example/x' });

async function sessionCount(a: V2Child): Promise<number> {
  return (await a.connection.sendRequest('session/list', {})).sessions.length;
}

describe('MCP server declarations', () => {
  it('refuses a server name given twice in session/new at the repeat’s name, creating no session', async () => {
    const a = await agent();
    const error = await errorOf(
      a.connection.sendRequest('session/new', {
        cwd: '/repo',
        mcpServers: [stdio('files'), stdio('git'), stdio('files')],
      }),
    );
    expect(error).toMatchObject({
      code: -32602,
      data: { pointer: '/params/mcpServers/2/name', expected: 'a name no other server in mcpServers has' },
    });
    expect(error.message).toContain('"files"');
    expect(await sessionCount(a)).toBe(0);
  });

  it('refuses an http server the agent did not advertise at its type, and takes it once advertised', async () => {
    const plain = await agent();
    const error = await errorOf(
      plain.connection.sendRequest('session/new', {
        cwd: '/repo',
        mcpServers: [stdio('files'), http('web')],
      }),
    );
    expect(error).toMatchObject({ code: -32602, data: { pointer: '/params/mcpServers/1/type' } });
    expect(error.message).toContain('capabilities.session.mcp.http');
    expect(await sessionCount(plain)).toBe(0);

    const withHttp = await agent(['--mcp-http']);
    const { sessionId } = await withHttp.connection.sendRequest('session/new', {
      cwd: '/repo',
      mcpServers: [stdio('files'), http('web')],
    });
    expect(sessionId).toMatch(/^sess_/);
  });

  it('leaves stdio and transports it does not know (later versions, `_`-prefixed) to the application', async () => {
    const a = await agent();
    const { sessionId } = await a.connection.sendRequest('session/new', {
      cwd: '/repo',
      mcpServers: [stdio('files'), { type: '_custom', name: 'mine' } as McpServer],
    });
    const { sessions } = await a.connection.sendRequest('session/list', {});
    expect(sessions.find((s) => s.sessionId === sessionId)?.title).toContain('mcp=files,mine');
  });

  it('checks session/resume too: a repeated name and an unadvertised http server are refused', async () => {
    const a = await agent();
    const { sessionId } = await a.connection.sendRequest('session/new', { cwd: '/repo' });
    const twice = await errorOf(
      a.connection.sendRequest('session/resume', {
        sessionId,
        cwd: '/repo',
        mcpServers: [stdio('files'), stdio('files')],
      }),
    );
    expect(twice).toMatchObject({ code: -32602, data: { pointer: '/params/mcpServers/1/name' } });
    const unadvertised = await errorOf(
      a.connection.sendRequest('session/resume', { sessionId, cwd: '/repo', mcpServers: [http('web')] }),
    );
    expect(unadvertised).toMatchObject({ code: -32602, data: { pointer: '/params/mcpServers/0/type' } });
  });

  it('checks session/fork too, creating no fork', async () => {
    const a = await agent(['--fork']);
    const { sessionId } = await a.connection.sendRequest('session/new', { cwd: '/repo' });
    const error = await errorOf(
      a.connection.sendRequest('session/fork', {
        sessionId,
        cwd: '/repo',
        mcpServers: [http('web'), stdio('web')],
      }),
    );
    expect(error).toMatchObject({ code: -32602, data: { pointer: '/params/mcpServers/0/type' } });
    const repeat = await errorOf(
      a.connection.sendRequest('session/fork', {
        sessionId,
        cwd: '/repo',
        mcpServers: [stdio('a'), stdio('a')],
      }),
    );
    expect(repeat).toMatchObject({ code: -32602, data: { pointer: '/params/mcpServers/1/name' } });
    expect(await sessionCount(a)).toBe(1);
  });
});
