import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Connection, noValidation } from '../../src/rpc/index.js';
import {
  formatTranscriptLine,
  recordTranscript,
  recordTranscriptToFile,
  wireDirection,
} from '../../src/transcript/index.js';
import { createInProcessPair } from '../../src/transports/index.js';

function pair(): { agent: Connection; client: Connection } {
  const [a, b] = createInProcessPair();
  const agent = new Connection(a, { validator: noValidation });
  const client = new Connection(b, { validator: noValidation });
  agent.onRequest('_echo', (params) => params);
  agent.onUnhandledNotification(() => {});
  client.onUnhandledNotification(() => {});
  agent.listen();
  client.listen();
  return { agent, client };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('transcript recorder', () => {
  it('maps in/out to wire directions for each side', () => {
    expect(wireDirection('client', 'out')).toBe('client->agent');
    expect(wireDirection('client', 'in')).toBe('agent->client');
    expect(wireDirection('agent', 'in')).toBe('client->agent');
    expect(wireDirection('agent', 'out')).toBe('agent->client');
  });

  it('records a request and its response with the same directions from both ends', async () => {
    const { agent, client } = pair();
    const onClient = recordTranscript(client, { side: 'client', timestamps: false });
    const onAgent = recordTranscript(agent, { side: 'agent', timestamps: false });
    await client.sendRequest('_echo', { hello: 1 });
    const expected = [
      { dir: 'client->agent', msg: { jsonrpc: '2.0', id: 1, method: '_echo', params: { hello: 1 } } },
      { dir: 'agent->client', msg: { jsonrpc: '2.0', id: 1, result: { hello: 1 } } },
    ];
    expect(onClient.lines).toEqual(expected);
    expect(onAgent.lines).toEqual(expected);
    client.close();
  });

  it('writes one ndjson line per message to the sink, with t from the given clock', async () => {
    const { agent, client } = pair();
    let clock = 100;
    const written: string[] = [];
    const recorder = recordTranscript(client, {
      side: 'client',
      sink: { write: (line) => written.push(line) },
      now: () => clock,
    });
    clock = 112.5;
    await client.sendNotification('_ping', {});
    expect(written).toEqual([
      '{"dir":"client->agent","t":12.5,"msg":{"jsonrpc":"2.0","method":"_ping","params":{}}}\n',
    ]);
    expect(recorder.text()).toBe(written.join(''));
    agent.close();
  });

  it('stops recording when disposed', async () => {
    const { client } = pair();
    const recorder = recordTranscript(client, { side: 'client' });
    recorder.dispose();
    await client.sendNotification('_ping', {});
    expect(recorder.lines).toHaveLength(0);
    client.close();
  });

  it('writes a file that reads back line by line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'acp-transcript-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const { client } = pair();
    const path = join(dir, 'run.ndjson');
    const recorder = recordTranscriptToFile(client, path, 'client');
    await client.sendRequest('_echo', [1, 2]);
    await recorder.close();
    const lines = (await readFile(path, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.dir)).toEqual(['client->agent', 'agent->client']);
    expect(lines[1].msg.result).toEqual([1, 2]);
    expect(typeof lines[0].t).toBe('number');
    client.close();
  });

  it('writes its file readable by its owner only (0600), also one that existed readable by others (#40 item 15)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'acp-transcript-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const { client } = pair();
    const fresh = join(dir, 'fresh.ndjson');
    const existing = join(dir, 'existing.ndjson');
    await writeFile(existing, 'old\n');
    await chmod(existing, 0o644);
    const recorders = [fresh, existing].map((path) => recordTranscriptToFile(client, path, 'client'));
    await client.sendRequest('_echo', ['a secret prompt']);
    for (const recorder of recorders) await recorder.close();
    const modes = await Promise.all([fresh, existing].map(async (path) => (await stat(path)).mode & 0o777));
    expect(modes).toEqual([0o600, 0o600]);
    expect(await readFile(existing, 'utf8')).toContain('a secret prompt');
    client.close();
  });

  it('omits t from a formatted line that has none', () => {
    expect(formatTranscriptLine({ dir: 'agent->client', msg: { a: 1 } })).toBe(
      '{"dir":"agent->client","msg":{"a":1}}\n',
    );
  });
});
