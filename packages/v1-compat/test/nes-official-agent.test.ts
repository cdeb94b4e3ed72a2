/**
 * #43, next edit suggestions the other way round: acp-kit's `NesClient`, on a v2 `Client`
 * negotiated down to v1 with `v1WireCodec`, drives an agent written with the official SDK's
 * `experimental/nes` API — a real child process, over stdio, or hosted by the official SDK's
 * `AcpServer` and reached over Streamable HTTP (`connectHttp`) and WebSocket (`connectWebSocket`) —
 * through a start, document events in each sync kind the agent asks for, suggestions of each kind
 * it sends, accept, reject and close; a kind the client did not advertise is refused at its pointer.
 * The same again through the bridge process (`bridge-main.ts v2`, as `acp-kit bridge --serve v2`
 * runs it) in front of the official agent over stdio: the client then speaks v2 and the bridge
 * relays `nes/*` and `document/*` to the v1 agent and back.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import {
  Client,
  type ClientConnection,
  Connection,
  connectHttp,
  connectWebSocket,
  negotiateClientVersion,
  spawnTransport,
  type Transport,
} from '@acp-kit/sdk';
import { NesClient } from '@acp-kit/sdk/nes';
import type { ClientCapabilities } from '@acp-kit/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { v1WireCodec } from '../src/index.js';
import { fixture } from './helpers.js';

const clients: Client[] = [];
const listeners: ChildProcess[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  for (const child of listeners.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = once(child, 'exit');
    process.kill(-child.pid!, 'SIGKILL');
    await exited;
  }
});

type Wire = 'stdio' | 'http' | 'websocket' | 'bridge';

/**
 * The official agent in its own process group, over stdio or listening (`listen`: its endpoint
 * read from the JSON line it prints); its stderr collected for the `nes-log` lines.
 */
async function officialAgent(
  wire: Wire,
  sync: 'full' | 'incremental',
): Promise<{ transport: Transport; stderr: () => string }> {
  let stderr = '';
  const env = { ...process.env, NES_SYNC: sync };
  const script = fixture('official-nes-agent.ts');
  if (wire === 'bridge') {
    const bridged = [process.execPath, '--import', 'tsx', script, 'stdio'];
    const transport = spawnTransport(
      process.execPath,
      ['--import', 'tsx', fixture('bridge-main.ts'), 'v2', ...bridged],
      {
        env,
        name: 'bridge to the official NES agent',
        onStderr: (text) => {
          stderr += text;
        },
      },
    );
    return { transport, stderr: () => stderr };
  }
  if (wire === 'stdio') {
    const transport = spawnTransport(process.execPath, ['--import', 'tsx', script, 'stdio'], {
      env,
      name: 'official NES agent',
      onStderr: (text) => {
        stderr += text;
      },
    });
    return { transport, stderr: () => stderr };
  }
  const child = spawn(process.execPath, ['--import', 'tsx', script, 'listen'], {
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  listeners.push(child);
  child.stderr!.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(() => {
      throw new Error(`the official NES agent exited before listening: ${stderr}`);
    }),
  ])) as [string];
  lines.close();
  const endpoint = JSON.parse(line) as { url: string; webSocketUrl: string };
  const transport =
    wire === 'http' ? await connectHttp(endpoint.url) : await connectWebSocket(endpoint.webSocketUrl);
  return { transport, stderr: () => stderr };
}

const URI = 'file:///repo/main.ts';
/** The kit's client advertises jump and rename, not searchAndReplace. */
const CAPABILITIES: ClientCapabilities = { nes: { jump: {}, rename: {} }, positionEncodings: ['utf-16'] };

async function connect(wire: Wire, sync: 'full' | 'incremental', capabilities = CAPABILITIES) {
  const { transport, stderr } = await officialAgent(wire, sync);
  const versions: number[] = [];
  const connection: ClientConnection = new Connection(
    negotiateClientVersion(transport, { codecs: [v1WireCodec], onNegotiated: (v) => versions.push(v) }),
  );
  const client = new Client(connection, {
    info: { name: 'acp-kit-nes-client', version: '0.0.0' },
    unstable: true,
    capabilities,
  });
  clients.push(client);
  const init = await client.initialize();
  const log = () =>
    stderr()
      .split('\n')
      .filter((line) => line.startsWith('nes-log '))
      .map((line) => JSON.parse(line.slice('nes-log '.length)) as Record<string, unknown>);
  return { nes: new NesClient(client, init, capabilities), init, versions, log };
}

describe.each([
  ['stdio', 'incremental'],
  ['stdio', 'full'],
  ['http', 'incremental'],
  ['http', 'full'],
  ['websocket', 'incremental'],
  ['websocket', 'full'],
  ['bridge', 'incremental'],
  ['bridge', 'full'],
] as const)('NesClient driving an official-SDK NES agent over %s (didChange %s)', (wire, sync) => {
  it('starts, syncs the document, gets edit, jump and rename, accepts, rejects, refuses an unadvertised searchAndReplace at its pointer, and closes', async () => {
    const { nes, init, versions, log } = await connect(wire, sync);
    // Direct, the client negotiates down to v1; through the bridge it speaks v2.
    expect(versions).toEqual([wire === 'bridge' ? 2 : 1]);
    expect(init.capabilities?.nes?.events?.document?.didChange?.syncKind).toBe(sync);
    expect(nes.offered).toBe(true);

    const sessionId = await nes.start({ workspaceUri: 'file:///repo' });
    await nes.open(sessionId, URI, 'typescript', 1, 'let count = 0;\ncount += 1;\n');
    // Rename the first occurrence by hand: "count" → "total" on line 0.
    await nes.change(sessionId, URI, 2, [
      { range: { start: { line: 0, character: 4 }, end: { line: 0, character: 9 } }, text: 'total' },
    ]);
    await nes.save(sessionId, URI);
    await nes.focus(
      sessionId,
      URI,
      { line: 0, character: 9 },
      {
        start: { line: 0, character: 0 },
        end: { line: 2, character: 0 },
      },
    );
    const suggestions = await nes.suggest(sessionId, URI, { line: 0, character: 9 });
    expect(suggestions).toEqual([
      {
        kind: 'edit',
        suggestionId: 'official-1',
        uri: URI,
        edits: [
          {
            range: { start: { line: 0, character: 9 }, end: { line: 0, character: 9 } },
            // The agent's own view of line 0 after the change: it applied the event it got.
            newText: '// let total = 0;',
          },
        ],
      },
      { kind: 'jump', suggestionId: 'official-2', uri: URI, position: { line: 0, character: 0 } },
      {
        kind: 'rename',
        suggestionId: 'official-3',
        uri: URI,
        position: { line: 0, character: 9 },
        newName: 'renamed',
      },
    ]);
    await nes.accept(sessionId, 'official-1');
    await nes.reject(sessionId, 'official-2', 'rejected');

    const refused = await nes
      .suggest(sessionId, URI, { line: 1, character: 0 }, { triggerKind: 'manual' })
      .then(
        () => undefined,
        (error: unknown) => error as { code?: number; data?: { pointer?: string } },
      );
    expect(refused).toMatchObject({ code: -32602, data: { pointer: '/suggestions/3/kind' } });

    await nes.closeDocument(sessionId, URI);
    await nes.close(sessionId);
    await expect.poll(() => log().at(-1)?.method).toBe('nes/close');
    expect(log()).toEqual([
      { method: 'document/didOpen', version: 1 },
      { method: 'document/didChange', version: 2, ranged: sync === 'incremental' },
      { method: 'document/didSave' },
      { method: 'document/didFocus', position: { line: 0, character: 9 } },
      { method: 'nes/accept', id: 'official-1' },
      { method: 'nes/reject', id: 'official-2', reason: 'rejected' },
      { method: 'document/didClose' },
      { method: 'nes/close' },
    ]);
  });

  it('advertising searchAndReplace too, takes all four kinds and accepts the searchAndReplace', async () => {
    const all: ClientCapabilities = { nes: { jump: {}, rename: {}, searchAndReplace: {} } };
    const { nes, log } = await connect(wire, sync, all);
    const sessionId = await nes.start();
    await nes.open(sessionId, URI, 'typescript', 1, 'let count = 0;\ncount += 1;\n');
    const suggestions = await nes.suggest(
      sessionId,
      URI,
      { line: 1, character: 0 },
      { triggerKind: 'manual' },
    );
    expect(suggestions.map((s) => s.kind)).toEqual(['edit', 'jump', 'rename', 'searchAndReplace']);
    expect(suggestions[3]).toEqual({
      kind: 'searchAndReplace',
      suggestionId: 'official-4',
      uri: URI,
      search: 'count',
      replace: 'total',
    });
    await nes.accept(sessionId, 'official-4');
    await nes.close(sessionId);
    await expect.poll(() => log().at(-1)?.method).toBe('nes/close');
    expect(log()).toContainEqual({ method: 'nes/accept', id: 'official-4' });
  });
});
