/**
 * The reference agent's next edit suggestions (`acp-kit agent --unstable`, a real child process
 * over stdio, driven by acp-kit's NesClient): deterministic suggestions a test can predict — the
 * other occurrences after a hand rename (as rename and searchAndReplace, or one edit to a client
 * that takes neither), a completion after a typed prefix, a jump to the next occurrence — only of
 * the kinds the client advertised, with positions in the negotiated encoding.
 */
import type { ClientCapabilities } from '@acp-kit/schema';
import { Client, type ClientConnection, Connection, schemaValidator } from '@acp-kit/sdk';
import { NesClient } from '@acp-kit/sdk/nes';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { agentProcess, requireBuild } from '../harness.js';

beforeAll(requireBuild);

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

const URI = 'file:///repo/main.ts';

async function editor(capabilities: ClientCapabilities): Promise<NesClient> {
  const transport = agentProcess(['--unstable', '--chunk-delay', '0']);
  stops.push(async () => void (await transport.shutdown()));
  const connection: ClientConnection = new Connection(transport, { validator: schemaValidator });
  const client = new Client(connection, {
    info: { name: 'editor', version: '0' },
    unstable: true,
    capabilities,
  });
  return new NesClient(client, await client.initialize(), capabilities);
}

describe('the reference agent suggests next edits', () => {
  it('after a hand rename, suggests the other occurrences as rename and searchAndReplace', async () => {
    const nes = await editor({ nes: { rename: {}, searchAndReplace: {}, jump: {} } });
    const s = await nes.start({ workspaceUri: 'file:///repo' });
    await nes.open(s, URI, 'typescript', 1, 'let count = 0;\ncount += 1;\nlog(count);\n');
    await nes.change(s, URI, 2, [
      { range: { start: { line: 0, character: 4 }, end: { line: 0, character: 9 } }, text: 'total' },
    ]);
    expect(await nes.suggest(s, URI, { line: 0, character: 9 })).toEqual([
      { kind: 'rename', suggestionId: 's1', uri: URI, position: { line: 1, character: 0 }, newName: 'total' },
      {
        kind: 'searchAndReplace',
        suggestionId: 's2',
        uri: URI,
        search: 'count',
        replace: 'total',
        isRegex: false,
      },
    ]);
    await nes.accept(s, 's2');
    await nes.close(s);
  });

  it('to a client that takes neither rename nor searchAndReplace, the same as one edit, in UTF-8', async () => {
    const nes = await editor({ positionEncodings: ['utf-8'] });
    expect(nes.encoding).toBe('utf-8');
    const s = await nes.start();
    await nes.open(s, URI, 'typescript', 1, 'é count = 0;\ncount += 1;\n');
    await nes.change(s, URI, 2, [
      { range: { start: { line: 0, character: 2 }, end: { line: 0, character: 7 } }, text: 'total' },
    ]);
    expect(await nes.suggest(s, URI, { line: 0, character: 7 })).toEqual([
      {
        kind: 'edit',
        suggestionId: 's1',
        uri: URI,
        edits: [
          { range: { start: { line: 1, character: 0 }, end: { line: 1, character: 5 } }, newText: 'total' },
        ],
      },
    ]);
    await nes.reject(s, 's1', 'rejected');
  });

  it('completes a typed prefix with an edit and jumps to the next occurrence', async () => {
    const nes = await editor({ nes: { jump: {} } });
    const s = await nes.start();
    await nes.open(s, URI, 'typescript', 1, 'const totalCount = 1;\nuse(tot);\nuse(tot);\n');
    expect(await nes.suggest(s, URI, { line: 1, character: 7 })).toEqual([
      {
        kind: 'edit',
        suggestionId: 's1',
        uri: URI,
        edits: [
          { range: { start: { line: 1, character: 7 }, end: { line: 1, character: 7 } }, newText: 'alCount' },
        ],
      },
      { kind: 'jump', suggestionId: 's2', uri: URI, position: { line: 2, character: 4 } },
    ]);
  });
});
