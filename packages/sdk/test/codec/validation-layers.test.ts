import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/index.js';
import { Connection, noValidation } from '../../src/rpc/index.js';
import { createInProcessPair } from '../../src/transports/index.js';

const badPrompt = { sessionId: 's', prompt: [{ type: 5 }] };

describe('validation lives with the protocol layers, not in the JSON-RPC core', () => {
  it('no module of rpc/ imports the ACP schema at run time', () => {
    const dir = new URL('../../src/rpc/', import.meta.url);
    const runtimeImports = readdirSync(dir)
      .filter((file) => file.endsWith('.ts'))
      .filter((file) =>
        /^import\s+(?!type\b)[^;]*from\s+'@acp-kit\/schema'/m.test(readFileSync(new URL(file, dir), 'utf8')),
      );
    expect(runtimeImports).toEqual([]);
  });

  it('a bare connection checks no ACP params: a malformed prompt reaches its handler', async () => {
    const [a, b] = createInProcessPair();
    const server = new Connection(a);
    const seen: unknown[] = [];
    server.onRequest('session/prompt', (params) => {
      seen.push(params);
      return { messageId: 'm' };
    });
    server.listen();
    const client = new Connection(b).listen();
    expect(await client.sendRequest('session/prompt', badPrompt as never)).toEqual({ messageId: 'm' });
    expect(seen).toEqual([badPrompt]);
    client.close();
  });

  it('Agent.serve brings the v2 validator to a bare connection: -32602 naming the pointer', async () => {
    const agent = new Agent({ info: { name: 'a', version: '1' }, onPrompt: (p) => void p.insert() });
    const [a, b] = createInProcessPair();
    agent.serve(new Connection(a));
    const client = new Connection(b).listen();
    await client.sendRequest('initialize', { protocolVersion: 2, info: { name: 'c', version: '1' } });
    await expect(client.sendRequest('session/prompt', badPrompt as never)).rejects.toMatchObject({
      code: -32602,
      data: { pointer: '/params/prompt/0/type' },
    });
    client.close();
  });

  it('an explicit validator option wins over the one the agent brings', async () => {
    const agent = new Agent({ info: { name: 'a', version: '1' }, onPrompt: (p) => void p.insert() });
    const [a, b] = createInProcessPair();
    agent.serve(new Connection(a, { validator: noValidation }));
    const client = new Connection(b).listen();
    // Without validation the agent's own checks answer: the session does not exist.
    await client.sendRequest('initialize', { protocolVersion: 2, info: { name: 'c', version: '1' } });
    await expect(client.sendRequest('session/prompt', badPrompt as never)).rejects.toMatchObject({
      code: -32002,
    });
    client.close();
  });
});
