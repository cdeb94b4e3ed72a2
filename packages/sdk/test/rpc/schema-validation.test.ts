import type { PromptRequest, PromptResponse } from '@acp-kit/schema';
import { describe, expect, it } from 'vitest';
import { schemaValidator } from '../../src/codec/index.js';
import { ErrorCodes } from '../../src/rpc/index.js';
import { rawPeer } from './helpers.js';

// The JSON-RPC core validates nothing by itself; this is the validator the agent and client layers bring.
describe('ACP schema validation (schemaValidator)', () => {
  it('answers a prompt whose content type is not a string with -32602 pointing at the tag', async () => {
    const prompts: PromptRequest[] = [];
    const peer = rawPeer({ validator: schemaValidator }, (c) =>
      c.onRequest('session/prompt', (params) => {
        prompts.push(params as PromptRequest);
        return { messageId: 'm1' } satisfies PromptResponse;
      }),
    );
    peer.sendJson({
      jsonrpc: '2.0',
      id: 1,
      method: 'session/prompt',
      params: { sessionId: 's', prompt: [{ type: 5, text: 'hi' }] },
    });
    const answer = await peer.next();
    expect(answer).toMatchObject({
      id: 1,
      error: { code: ErrorCodes.InvalidParams, data: { pointer: '/params/prompt/0/type' } },
    });
    expect((answer.error as { message: string }).message).toMatch(
      /^Invalid params at \/params\/prompt\/0\/type: expected /,
    );
    expect(prompts).toEqual([]);

    peer.sendJson({
      jsonrpc: '2.0',
      id: 2,
      method: 'session/prompt',
      params: { sessionId: 's', prompt: [{ type: 'text', text: 'hi' }] },
    });
    expect(await peer.next()).toEqual({ jsonrpc: '2.0', id: 2, result: { messageId: 'm1' } });
  });

  it('rejects a prompt response whose messageId is null, naming /result/messageId', async () => {
    const peer = rawPeer({ validator: schemaValidator });
    const pending = peer.connection.sendRequest('session/prompt', { sessionId: 's', prompt: [] });
    const request = await peer.next();
    peer.sendJson({ jsonrpc: '2.0', id: request.id, result: { messageId: null } });
    await expect(pending).rejects.toMatchObject({
      code: ErrorCodes.InternalError,
      data: { pointer: '/result/messageId', expected: 'string' },
    });
    expect(peer.diagnostics).toMatchObject([
      { kind: 'invalid-result', method: 'session/prompt', pointer: expect.stringMatching(/^\/result/) },
    ]);
    expect(await peer.probe()).toHaveProperty('result');
  });

  it('leaves extension methods unchecked', async () => {
    const peer = rawPeer({ validator: schemaValidator }, (c) =>
      c.onRequest('_vendor/free', (params) => params),
    );
    peer.sendJson({ jsonrpc: '2.0', id: 3, method: '_vendor/free', params: { anything: [1, 'x'] } });
    expect(await peer.next()).toEqual({ jsonrpc: '2.0', id: 3, result: { anything: [1, 'x'] } });
  });
});
