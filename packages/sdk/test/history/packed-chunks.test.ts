import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SessionUpdate } from '@acp-kit/schema';
import { describe, expect, it } from 'vitest';
import { MemorySessionLog } from '../../src/history/index.js';
import type { LogEntry, NewLogEntry } from '../../src/history/index.js';

const SESSION = 'sess_packed';
const chunk = (messageId: string, text: string, sessionUpdate = 'agent_message_chunk'): SessionUpdate =>
  ({ sessionUpdate, messageId, content: { type: 'text', text } }) as SessionUpdate;
const state = (value: string): SessionUpdate =>
  ({ sessionUpdate: 'state_update', state: value }) as SessionUpdate;

async function logWith(entries: NewLogEntry[]): Promise<MemorySessionLog> {
  const log = new MemorySessionLog();
  await log.createSession({ sessionId: SESSION, cwd: '/tmp' });
  for (const entry of entries) await log.append(SESSION, [entry]);
  return log;
}

/** The JSON of what a read returns: what a replay or a follower catching up would send. */
const json = (entries: readonly LogEntry[]): string[] => entries.map((entry) => JSON.stringify(entry));

describe('MemorySessionLog with streamed text chunks', () => {
  it('reads back every chunk of long messages with the JSON it was appended with, from any position', async () => {
    const texts = Array.from({ length: 150 }, (_, i) =>
      i % 7 === 0 ? `emoji 🦊 ${i} é ${'x'.repeat(i % 90)}` : `chunk ${i} ${'y'.repeat((i * 37) % 61)}`,
    );
    const appended: NewLogEntry[] = [
      { update: state('running') },
      ...texts.map((text) => ({ update: chunk('msg_a', text) })),
      {
        update: {
          sessionUpdate: 'tool_call_update',
          toolCallId: 'call_1',
          status: 'completed',
        } as SessionUpdate,
      },
      ...texts.slice(0, 70).map((text) => ({ update: chunk('msg_b', text, 'agent_thought_chunk') })),
      { update: chunk('msg_c', 'a lone chunk') },
      { update: state('idle') },
    ];
    const expected = appended.map((entry, i) =>
      JSON.stringify({ seq: i + 1, update: entry.update, retain: true }),
    );
    const log = await logWith(appended);
    for (let after = 0; after <= appended.length; after += 1) {
      for (const limit of [1, 63, 64, 65, 1000]) {
        const page = await log.read(SESSION, { afterSeq: after, limit });
        expect(json(page.entries)).toEqual(expected.slice(after, after + limit));
        expect(page.lastSeq).toBe(appended.length);
      }
    }
  });

  it('keeps interleaved messages, and chunks carrying more than plain text, exactly as appended', async () => {
    const withMeta = {
      sessionUpdate: 'agent_message_chunk',
      messageId: 'msg_a',
      content: { type: 'text', text: 'annotated', annotations: { priority: 1 } },
    } as SessionUpdate;
    const metaOnUpdate = { ...chunk('msg_a', 'with meta'), _meta: { source: 'test' } } as SessionUpdate;
    const otherOrder = {
      messageId: 'msg_a',
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: 'reordered' },
    } as SessionUpdate;
    const textFirst = {
      sessionUpdate: 'agent_message_chunk',
      messageId: 'msg_a',
      content: { text: 'text first', type: 'text' },
    } as SessionUpdate;
    const image = {
      sessionUpdate: 'agent_message_chunk',
      messageId: 'msg_a',
      content: { type: 'image', data: 'AAAA', mimeType: 'image/png' },
    } as SessionUpdate;
    const unknownKind = {
      sessionUpdate: 'future_chunk',
      messageId: 'msg_a',
      content: { type: 'text', text: 'new kind' },
    } as SessionUpdate;
    const appended: NewLogEntry[] = [
      { update: chunk('msg_a', 'one') },
      { update: chunk('msg_b', 'two') },
      { update: chunk('msg_a', 'three') },
      { update: chunk('msg_a', 'four') },
      { update: withMeta },
      { update: chunk('msg_a', 'five') },
      { update: metaOnUpdate },
      { update: otherOrder },
      { update: textFirst },
      { update: image },
      { update: unknownKind },
      { update: chunk('msg_a', 'six'), retain: false },
      { update: chunk('msg_a', 'seven'), retain: false },
      { update: chunk('msg_a', 'eight') },
    ];
    const log = await logWith(appended);
    const { entries } = await log.read(SESSION, {});
    expect(json(entries)).toEqual(
      appended.map((entry, i) =>
        JSON.stringify({ seq: i + 1, update: entry.update, retain: entry.retain ?? true }),
      ),
    );
    // Updates that are not plain text chunks are the very objects appended.
    for (const special of [withMeta, metaOnUpdate, otherOrder, textFirst, image, unknownKind]) {
      expect(entries.find((entry) => entry.update === special)).toBeDefined();
    }
    const retained = await log.read(SESSION, { retainedOnly: true, afterSeq: 2 });
    expect(retained.entries.map((entry) => entry.seq)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 14]);
    const fromRun = await log.read(SESSION, { retainedOnly: true, afterSeq: 12, limit: 5 });
    expect(fromRun.entries.map((entry) => entry.seq)).toEqual([14]);
  });

  it('keeps a streamed chunk in about a fifth of the heap the same entries take as objects', () => {
    const fixture = fileURLToPath(new URL('./fixtures/chunk-heap.ts', import.meta.url));
    const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', fixture, '20000'], {
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    const { packed, objects, last } = JSON.parse(run.stdout) as {
      packed: number;
      objects: number;
      last: unknown;
    };
    expect(last).toEqual({
      sessionUpdate: 'agent_message_chunk',
      messageId: 'msg_199',
      content: { type: 'text', text: '19999 the quick brown fox jumps over the lazy dog whi' },
    });
    // Packed: the text (about 50 characters here) and its offset; as objects, about 300 bytes.
    expect(packed).toBeLessThan(objects * 0.35);
  });
});
