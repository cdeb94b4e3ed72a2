/**
 * The v1 agent bridge checks a v2 client's MCP server declarations as an agent does, against what
 * the v1 agent advertises (`mcpCapabilities`): a name given twice and a transport the v1 agent
 * does not take (`http`, v1's `sse` — carried in v2 as `_sse`) are refused -32602 at their
 * pointer, before anything reaches the v1 agent. The v1 agent is the official SDK's, a child
 * process over stdio.
 */
import type { McpServer } from '@acp-kit/schema';
import type { RpcError } from '@acp-kit/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { type V1Rig, v1Rig } from './helpers.js';

const rigs: V1Rig[] = [];
function rig(env: Record<string, string> = {}): V1Rig {
  const made = v1Rig(env);
  rigs.push(made);
  return made;
}
afterEach(async () => {
  await Promise.all(rigs.splice(0).map((r) => r.close()));
});

async function rejection(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise;
  } catch (error) {
    return error as RpcError;
  }
  throw new Error('expected the request to be refused');
}

const stdio = (name: string): McpServer => ({ type: 'stdio', name, command: '/bin/mcp', args: [] });
const http = (name: string): McpServer => ({ type: 'http', name, url: 'https://mcp.example/x' });
const sse = (name: string): McpServer =>
  ({ type: '_sse', name, url: 'https://mcp.example/sse', headers: [] }) as unknown as McpServer;

describe('MCP server declarations through the v1 bridge', () => {
  it('refuses a repeated name and transports the v1 agent does not advertise, none reaching it', async () => {
    const { client } = rig();
    await client.initialize();
    const twice = await rejection(client.newSession('/repo', [stdio('files'), stdio('files')]));
    expect(twice).toMatchObject({ code: -32602, data: { pointer: '/params/mcpServers/1/name' } });
    const viaHttp = await rejection(client.newSession('/repo', [stdio('files'), http('web')]));
    expect(viaHttp).toMatchObject({ code: -32602, data: { pointer: '/params/mcpServers/1/type' } });
    const viaSse = await rejection(client.newSession('/repo', [sse('events')]));
    expect(viaSse).toMatchObject({ code: -32602, data: { pointer: '/params/mcpServers/0/type' } });
    // The v1 agent numbers the sessions it creates: the first it saw is this one.
    expect(await client.newSession('/repo', [stdio('files')])).toMatch(/^v1-sess-1-/);
  });

  it('takes http and sse servers when the v1 agent advertises them', async () => {
    const { client } = rig({ V1_MCP: '{"http":true,"sse":true}' });
    const init = await client.initialize();
    expect(init.capabilities?.session?.mcp?.http).toEqual({});
    expect(await client.newSession('/repo', [stdio('files'), http('web'), sse('events')])).toMatch(
      /^v1-sess-1-/,
    );
  });

  it('checks session/resume too (v1 session/load)', async () => {
    const { client } = rig();
    await client.initialize();
    const sessionId = await client.newSession('/repo');
    const unadvertised = await rejection(
      client.resume(sessionId, { cwd: '/repo', mcpServers: [http('a'), stdio('a')] }),
    );
    expect(unadvertised).toMatchObject({ code: -32602, data: { pointer: '/params/mcpServers/0/type' } });
    const repeated = await rejection(
      client.resume(sessionId, { cwd: '/repo', mcpServers: [stdio('a'), stdio('a')] }),
    );
    expect(repeated).toMatchObject({ code: -32602, data: { pointer: '/params/mcpServers/1/name' } });
  });
});
