/**
 * JSON-RPC batches against `acp-kit agent` over stdio (a real child process, raw ndjson lines):
 * a batch holding the first `initialize` negotiates v2 when it asks for 2 and is refused whole when
 * it asks for 1 (v1 has no batches); on a connection negotiated to v1 a batch gets one -32600 and
 * the connection keeps working. No request is ever left unanswered.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild } from '../harness.js';
import { type AgentProcess, spawnAgentProcess } from './agent-process.js';

beforeAll(requireBuild);
let running: AgentProcess | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

type Answer = {
  id?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};

/** `acp-kit agent` driven by raw lines; `next` waits for the first line it wrote that matches. */
function agent() {
  running = spawnAgentProcess();
  const { wire, send } = running;
  return {
    send,
    next: async (match: (line: unknown) => boolean): Promise<unknown> => {
      await expect.poll(() => wire.some(match), { timeout: 60_000 }).toBe(true);
      return wire.find(match);
    },
  };
}

const request = (id: number, method: string, params: unknown) => ({ jsonrpc: '2.0', id, method, params });
const isArray = (line: unknown): line is Answer[] => Array.isArray(line);
const answerTo = (id: unknown) => (line: unknown) => !Array.isArray(line) && (line as Answer).id === id;

describe('acp-kit agent and JSON-RPC batches around version negotiation', () => {
  it('negotiates v2 from a batched initialize asking for 2 and answers the batch as one array', async () => {
    const a = agent();
    a.send([
      request(1, 'initialize', { protocolVersion: 2, info: { name: 'batch-client', version: '0' } }),
      { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 'sess_none' } },
    ]);
    const answer = (await a.next(isArray)) as Answer[];
    expect(answer).toHaveLength(1);
    expect(answer[0]).toMatchObject({
      id: 1,
      result: { protocolVersion: 2, info: { name: 'acp-kit-agent' } },
    });
    a.send(request(2, 'session/new', { cwd: '/tmp' }));
    expect(await a.next(answerTo(2))).toMatchObject({ result: { sessionId: expect.any(String) } });
  });

  it('refuses a batched initialize asking for 1 with -32600 per request in one array; a single one then negotiates v1', async () => {
    const a = agent();
    a.send([
      request(1, 'initialize', { protocolVersion: 1, clientCapabilities: {} }),
      request(2, 'session/new', { cwd: '/tmp', mcpServers: [] }),
    ]);
    const answer = (await a.next(isArray)) as Answer[];
    expect(
      answer.map((e) => [e.id, e.error?.code, (e.error?.data as { pointer?: string } | undefined)?.pointer]),
    ).toEqual([
      [1, -32600, '/0'],
      [2, -32600, '/1'],
    ]);
    expect(answer[0]?.error?.message).toMatch(/cannot be batched \(version 1 has no batches\)/);
    a.send(request(3, 'initialize', { protocolVersion: 1, clientCapabilities: {} }));
    expect(await a.next(answerTo(3))).toMatchObject({
      result: { protocolVersion: 1, agentCapabilities: { loadSession: true } },
    });
  });

  it('answers a batch on a connection negotiated to v1 with one -32600 (id null) and keeps serving it', async () => {
    const a = agent();
    a.send(request(1, 'initialize', { protocolVersion: 1, clientCapabilities: {} }));
    expect(await a.next(answerTo(1))).toMatchObject({ result: { protocolVersion: 1 } });
    a.send([request(2, 'session/new', { cwd: '/tmp', mcpServers: [] })]);
    expect(await a.next(answerTo(null))).toMatchObject({
      error: { code: -32600, message: 'Invalid request: a v1 connection takes no batches' },
    });
    a.send(request(3, 'session/new', { cwd: '/tmp', mcpServers: [] }));
    expect(await a.next(answerTo(3))).toMatchObject({ result: { sessionId: expect.any(String) } });
    // The batched session/new was never run: the agent holds only the one created after it.
    a.send(request(4, 'session/list', {}));
    const listed = (await a.next(answerTo(4))) as Answer;
    expect((listed.result?.sessions as unknown[] | undefined)?.length).toBe(1);
  });
});
