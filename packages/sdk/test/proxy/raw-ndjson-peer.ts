/**
 * One end of a raw ndjson pipe, played by hand in the relay order tests: the lines read (a batch's
 * answer array as its entries, each marked `inBatch`), a wait on them, and a writer that puts
 * several messages in one chunk, so a relay reads them together.
 */
import type { PassThrough } from 'node:stream';

/** A message as read, with `inBatch` set on the entries of an answer array. */
export type Line = Record<string, unknown>;

/** Reads `input` and writes `output`; see the module comment. */
export function rawNdjsonPeer(input: PassThrough, output: PassThrough) {
  const lines: Line[] = [];
  let buffer = '';
  const waiters: (() => void)[] = [];
  input.setEncoding('utf8').on('data', (text: string) => {
    buffer += text;
    let end = buffer.indexOf('\n');
    while (end >= 0) {
      const parsed = JSON.parse(buffer.slice(0, end)) as Line | Line[];
      if (Array.isArray(parsed)) for (const entry of parsed) lines.push({ ...entry, inBatch: true });
      else lines.push(parsed);
      buffer = buffer.slice(end + 1);
      end = buffer.indexOf('\n');
    }
    for (const wake of waiters.splice(0)) wake();
  });
  const until = async (predicate: () => boolean): Promise<void> => {
    while (!predicate()) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  const send = (...messages: unknown[]) =>
    output.write(messages.map((m) => `${JSON.stringify(m)}\n`).join(''));
  return { lines, until, send };
}
