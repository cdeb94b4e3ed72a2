/**
 * Next edit suggestions through the SDK, agent and client over an in-process ndjson pair: the
 * negotiated position encoding applied to every position both ways, only the document events and
 * context the agent asked for, suggestion kinds the client did not advertise kept off the wire
 * (and refused by the client when an agent sends them anyway), refusals at their pointer (unknown
 * NES session, stale version, position outside the document) and the bounds.
 */
import type { ClientCapabilities, NesSuggestion } from '@acp-kit/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, type AgentConnection, type AgentOptions } from '../../src/agent/index.js';
import { Client, type ClientConnection } from '../../src/client/index.js';
import { type NesAgentOptions, NesClient, type NesSuggestCall } from '../../src/nes/index.js';
import { Connection, RpcError } from '../../src/rpc/index.js';
import { createInProcessPair } from '../../src/transports/index.js';

const URI = 'file:///work/app/main.ts';
const open: { close(): unknown }[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

async function wireNes(nes: NesAgentOptions, capabilities: ClientCapabilities) {
  const agent = new Agent({
    info: { name: 'nes-agent', version: '0.0.0' },
    unstable: true,
    async onPrompt() {},
    nes,
  } as AgentOptions);
  const [agentSide, clientSide] = createInProcessPair();
  const served = new Connection(agentSide) as AgentConnection;
  agent.serve(served);
  const connection = new Connection(clientSide) as ClientConnection;
  open.push(connection, served);
  const sent: { method: string; params: unknown }[] = [];
  connection.onMessage((direction, message) => {
    const m = message as { method?: string; params?: unknown };
    if (direction === 'out' && m.method !== undefined) sent.push({ method: m.method, params: m.params });
  });
  const client = new Client(connection, {
    info: { name: 'editor', version: '0.0.0' },
    unstable: true,
    capabilities,
  });
  const init = await client.initialize();
  return { init, nes: new NesClient(client, init, capabilities), sent, connection };
}

async function refusal(promise: Promise<unknown>): Promise<{ code: number; data: unknown }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  return { code: (error as RpcError).code, data: (error as RpcError).data };
}

describe('next edit suggestions through the SDK', () => {
  it('negotiates UTF-8 and converts every position both ways, astral characters and CRLF included', async () => {
    const calls: NesSuggestCall[] = [];
    const { init, nes } = await wireNes(
      {
        capabilities: { events: { document: { didOpen: {}, didChange: { syncKind: 'incremental' } } } },
        positionEncodings: ['utf-8', 'utf-16'],
        suggest(call) {
          calls.push(call);
          // "total" on line 1 sits after "😀 é " (4 + 1 + 2 + 1 = 8 bytes in UTF-8).
          return [
            {
              kind: 'edit',
              suggestionId: 's1',
              uri: URI,
              edits: [
                {
                  range: { start: { line: 1, character: 8 }, end: { line: 1, character: 13 } },
                  newText: 'sum',
                },
              ],
            },
          ];
        },
      },
      { positionEncodings: ['utf-8', 'utf-16'] },
    );
    expect(init.capabilities?.positionEncoding).toBe('utf-8');
    expect(nes.encoding).toBe('utf-8');
    const sessionId = await nes.start({});
    await nes.open(sessionId, URI, 'typescript', 1, 'let 😀 = 1;\r\n😀 é total\r\n');
    // The editor replaces "é" (UTF-16 offset 3 of line 1) with "ü": sent as UTF-8 bytes 5..7.
    await nes.change(sessionId, URI, 2, [
      { range: { start: { line: 1, character: 3 }, end: { line: 1, character: 4 } }, text: 'ü' },
    ]);
    const suggestions = await nes.suggest(sessionId, URI, { line: 1, character: 10 });
    expect(calls[0]!.document.text).toBe('let 😀 = 1;\r\n😀 ü total\r\n');
    expect(calls[0]!.document.version).toBe(2);
    // The editor's UTF-16 column 10 (after "total") is byte 13 on the wire.
    expect(calls[0]!.position).toEqual({ line: 1, character: 13 });
    expect(suggestions).toEqual([
      {
        kind: 'edit',
        suggestionId: 's1',
        uri: URI,
        edits: [
          { range: { start: { line: 1, character: 5 }, end: { line: 1, character: 10 } }, newText: 'sum' },
        ],
      },
    ]);
  });

  it('falls back to UTF-16 when the client offers nothing the agent supports', async () => {
    const { init } = await wireNes(
      { positionEncodings: ['utf-8'], suggest: () => [] },
      { positionEncodings: ['utf-32'] },
    );
    expect(init.capabilities?.positionEncoding).toBe('utf-16');
    expect(init.capabilities?.nes).toEqual({});
  });

  it('sends only the document events and the context the agent asked for, didChange in its sync kind', async () => {
    const calls: NesSuggestCall[] = [];
    const { nes, sent } = await wireNes(
      {
        capabilities: {
          events: { document: { didOpen: {}, didChange: { syncKind: 'full' } } },
          context: { editHistory: { maxCount: 1 } },
        },
        suggest(call) {
          calls.push(call);
          return [];
        },
      },
      {},
    );
    const sessionId = await nes.start();
    await nes.open(sessionId, URI, 'typescript', 1, 'abc\n');
    await nes.change(sessionId, URI, 2, [
      { range: { start: { line: 0, character: 3 }, end: { line: 0, character: 3 } }, text: 'd' },
    ]);
    await nes.save(sessionId, URI);
    await nes.focus(
      sessionId,
      URI,
      { line: 0, character: 0 },
      { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } },
    );
    await nes.suggest(
      sessionId,
      URI,
      { line: 0, character: 4 },
      {
        context: {
          editHistory: [
            { uri: URI, diff: 'old' },
            { uri: URI, diff: 'new' },
          ],
          diagnostics: [
            {
              uri: URI,
              range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
              severity: 'error',
              message: 'x',
            },
          ],
        },
      },
    );
    await nes.closeDocument(sessionId, URI);
    const methods = sent.map((m) => m.method).filter((m) => m.startsWith('document/'));
    expect(methods).toEqual(['document/didOpen', 'document/didChange']);
    expect(sent.find((m) => m.method === 'document/didChange')!.params).toMatchObject({
      version: 2,
      contentChanges: [{ text: 'abcd\n' }],
    });
    const suggest = sent.find((m) => m.method === 'nes/suggest')!.params as {
      context: Record<string, unknown>;
    };
    expect(Object.keys(suggest.context)).toEqual(['editHistory']);
    expect(calls[0]!.context).toEqual({ editHistory: [{ uri: URI, diff: 'new' }] });
  });

  it('keeps suggestion kinds the client did not advertise off the wire', async () => {
    const kinds: NesSuggestion[] = [
      { kind: 'jump', suggestionId: 'j', uri: URI, position: { line: 0, character: 0 } },
      { kind: 'rename', suggestionId: 'r', uri: URI, position: { line: 0, character: 0 }, newName: 'b' },
      {
        kind: 'edit',
        suggestionId: 'e',
        uri: URI,
        edits: [
          { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, newText: 'b' },
        ],
      },
    ];
    const { nes } = await wireNes(
      { capabilities: { events: { document: { didOpen: {} } } }, suggest: () => kinds },
      { nes: { rename: {} } },
    );
    const sessionId = await nes.start();
    await nes.open(sessionId, URI, 'plaintext', 1, 'a\n');
    const got = await nes.suggest(sessionId, URI, { line: 0, character: 0 });
    expect(got.map((s) => s.kind)).toEqual(['rename', 'edit']);
  });

  it('refuses an unknown NES session, a stale version and a position outside the document at their pointers', async () => {
    const { nes, connection } = await wireNes(
      {
        capabilities: { events: { document: { didOpen: {}, didChange: { syncKind: 'incremental' } } } },
        suggest: () => [],
      },
      {},
    );
    const sessionId = await nes.start();
    await nes.open(sessionId, URI, 'plaintext', 1, 'ab\ncd\n');
    const unknown = await refusal(
      connection.sendRequest('nes/suggest', {
        sessionId: 'nes_nope',
        uri: URI,
        version: 1,
        position: { line: 0, character: 0 },
        triggerKind: 'manual',
      }),
    );
    expect(unknown).toMatchObject({ code: -32602, data: { pointer: '/params/sessionId' } });
    const stale = await refusal(
      connection.sendRequest('nes/suggest', {
        sessionId,
        uri: URI,
        version: 0,
        position: { line: 0, character: 0 },
        triggerKind: 'manual',
      }),
    );
    expect(stale).toMatchObject({ code: -32602, data: { pointer: '/params/version' } });
    const outside = await refusal(
      connection.sendRequest('nes/suggest', {
        sessionId,
        uri: URI,
        version: 1,
        position: { line: 1, character: 3 },
        triggerKind: 'manual',
      }),
    );
    expect(outside).toMatchObject({ code: -32602, data: { pointer: '/params/position/character' } });
    const closed = await refusal(connection.sendRequest('nes/close', { sessionId: 'nes_nope' }));
    expect(closed).toMatchObject({ code: -32602, data: { pointer: '/params/sessionId' } });
  });

  it('bounds NES sessions per connection, documents per session and document size', async () => {
    const { nes, connection } = await wireNes(
      {
        capabilities: { events: { document: { didOpen: {} } } },
        limits: { sessionsPerConnection: 2, documentsPerSession: 1, maxDocumentLength: 8 },
        suggest: () => [],
      },
      {},
    );
    const first = await nes.start();
    await nes.start();
    expect((await refusal(nes.start())).code).toBe(-32600);
    await nes.close(first);
    const third = await nes.start();
    await nes.open(third, URI, 'plaintext', 1, 'short');
    await nes.open(third, 'file:///two', 'plaintext', 1, 'x');
    await nes.open(third, 'file:///long', 'plaintext', 1, 'far too long');
    await nes.suggest(third, URI, { line: 0, character: 0 });
    for (const uri of ['file:///two', 'file:///long']) {
      const refused = await refusal(
        connection.sendRequest('nes/suggest', {
          sessionId: third,
          uri,
          version: 1,
          position: { line: 0, character: 0 },
          triggerKind: 'manual',
        }),
      );
      expect(refused).toMatchObject({ code: -32602, data: { pointer: '/params/uri' } });
    }
  });

  it('refuses, on the client, a suggestion kind it did not advertise and a position outside the document', async () => {
    const [agentSide, clientSide] = createInProcessPair();
    const raw = new Connection(agentSide);
    open.push(raw);
    let answer: unknown;
    raw.onRequest(
      'initialize' as never,
      (() => ({
        protocolVersion: 2,
        info: { name: 'careless', version: '0' },
        capabilities: { nes: {}, positionEncoding: 'utf-16' },
      })) as never,
    );
    raw.onRequest('nes/start' as never, (() => ({ sessionId: 'n1' })) as never);
    raw.onRequest('nes/suggest' as never, (() => answer) as never);
    raw.listen();
    const connection = new Connection(clientSide) as ClientConnection;
    open.push(connection);
    const client = new Client(connection, { info: { name: 'editor', version: '0' }, unstable: true });
    const nes = new NesClient(client, await client.initialize());
    const sessionId = await nes.start();
    await nes.open(sessionId, URI, 'plaintext', 1, 'ab\n');
    answer = {
      suggestions: [{ kind: 'jump', suggestionId: 'j', uri: URI, position: { line: 0, character: 1 } }],
    };
    expect(await refusal(nes.suggest(sessionId, URI, { line: 0, character: 0 }))).toMatchObject({
      code: -32602,
      data: { pointer: '/suggestions/0/kind' },
    });
    answer = {
      suggestions: [
        {
          kind: 'edit',
          suggestionId: 'e',
          uri: URI,
          edits: [
            { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 9 } }, newText: '' },
          ],
        },
      ],
    };
    expect(await refusal(nes.suggest(sessionId, URI, { line: 0, character: 0 }))).toMatchObject({
      code: -32602,
      data: { pointer: '/suggestions/0/edits/0/range/end' },
    });
  });

  it('keeps a suggestion of a kind it does not know, beside the known ones, as it came', async () => {
    const [agentSide, clientSide] = createInProcessPair();
    const raw = new Connection(agentSide);
    open.push(raw);
    raw.onRequest(
      'initialize' as never,
      (() => ({
        protocolVersion: 2,
        info: { name: 'later', version: '0' },
        capabilities: { nes: {}, positionEncoding: 'utf-16' },
      })) as never,
    );
    raw.onRequest('nes/start' as never, (() => ({ sessionId: 'n1' })) as never);
    const later = { kind: 'ghostText', suggestionId: 'g', uri: URI, text: 'x', extra: { deep: [1] } };
    const vendor = { kind: '_vendor', suggestionId: 'v' };
    raw.onRequest(
      'nes/suggest' as never,
      (() => ({
        suggestions: [
          later,
          {
            kind: 'edit',
            suggestionId: 'e',
            uri: URI,
            edits: [
              { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, newText: 'A' },
            ],
          },
          vendor,
        ],
      })) as never,
    );
    raw.listen();
    const connection = new Connection(clientSide) as ClientConnection;
    open.push(connection);
    const client = new Client(connection, { info: { name: 'editor', version: '0' }, unstable: true });
    const nes = new NesClient(client, await client.initialize());
    const sessionId = await nes.start();
    await nes.open(sessionId, URI, 'plaintext', 1, 'ab\n');
    const suggestions = await nes.suggest(sessionId, URI, { line: 0, character: 0 });
    expect(suggestions.map((s) => s.kind)).toEqual(['ghostText', 'edit', '_vendor']);
    expect(suggestions[0]).toEqual(later);
    expect(suggestions[2]).toEqual(vendor);
  });

  it('needs unstable: true', () => {
    expect(
      () =>
        new Agent({
          info: { name: 'a', version: '0' },
          async onPrompt() {},
          // @ts-expect-error without unstable: true the nes option does not compile either
          nes: { suggest: () => [] },
        }),
    ).toThrow(/unstable/);
  });
});
