import { closeSync, createWriteStream, fchmodSync, fstatSync, openSync } from 'node:fs';
import type { Disposable, MessageDirection } from '../rpc/index.js';
import { formatTranscriptLine, type TranscriptLine, type TranscriptSide, wireDirection } from './format.js';

/** What a recorder needs from a connection: the message tap every `Connection` offers. */
export interface TappableConnection {
  /** Observes every parsed message in and every message out. */
  onMessage(listener: (direction: MessageDirection, message: unknown) => void): Disposable;
}

/** Where transcript lines go: a Node `Writable`, or anything else with a `write(text)`. */
export interface TranscriptSink {
  /** Receives one serialized line, trailing newline included. */
  write(line: string): unknown;
}

/** Options for {@link recordTranscript}. */
export interface TranscriptRecorderOptions {
  /** Which end of the connection is being recorded. */
  side: TranscriptSide;
  /** Receives each line as it is recorded; without one, lines are only kept in memory. */
  sink?: TranscriptSink;
  /** Whether lines carry `t` (ms since the recorder was created). Default true. */
  timestamps?: boolean;
  /** Whether to keep lines in {@link TranscriptRecorder.lines}. Default true. */
  keep?: boolean;
  /** Clock in ms, for tests. Default `performance.now`. */
  now?: () => number;
}

/** A running recording of one connection. */
export interface TranscriptRecorder extends Disposable {
  /** Lines recorded so far (empty when `keep` is false). */
  readonly lines: readonly TranscriptLine[];
  /** The recording so far as ndjson text. */
  text(): string;
  /** Called after each recorded line; used by callers that wait for a message to show up. */
  onLine(listener: (line: TranscriptLine, index: number) => void): Disposable;
}

/**
 * Records every message on a connection as transcript lines. Messages are captured at the tap, so
 * the transcript holds exactly what was parsed from and handed to the wire, in order.
 */
export function recordTranscript(
  connection: TappableConnection,
  options: TranscriptRecorderOptions,
): TranscriptRecorder {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const keep = options.keep !== false;
  const lines: TranscriptLine[] = [];
  const listeners = new Set<(line: TranscriptLine, index: number) => void>();
  let count = 0;
  const tap = connection.onMessage((direction, message) => {
    const line: TranscriptLine = { dir: wireDirection(options.side, direction), msg: message };
    if (options.timestamps !== false) line.t = Math.round((now() - started) * 10) / 10;
    if (keep) lines.push(line);
    options.sink?.write(formatTranscriptLine(line));
    const index = count++;
    for (const listener of listeners) listener(line, index);
  });
  return {
    lines,
    text: () => lines.map(formatTranscriptLine).join(''),
    onLine(listener) {
      listeners.add(listener);
      return { dispose: () => listeners.delete(listener) };
    },
    dispose: () => {
      tap.dispose();
      listeners.clear();
    },
  };
}

/** A recording written to a file; `close()` flushes it. */
export interface FileTranscriptRecorder extends TranscriptRecorder {
  /** Stops recording and resolves once everything is on disk. */
  close(): Promise<void>;
}

/**
 * Records a connection into an ndjson file (created or truncated). Lines are not kept in memory.
 * The file holds the conversation, so it is readable by its owner only: created with mode 0600,
 * and an existing file others may read is given mode 0600 before anything is written (it throws
 * when that cannot be done).
 */
export function recordTranscriptToFile(
  connection: TappableConnection,
  path: string,
  side: TranscriptSide,
): FileTranscriptRecorder {
  const fd = openSync(path, 'w', 0o600);
  try {
    if ((fstatSync(fd).mode & 0o077) !== 0) fchmodSync(fd, 0o600);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  const stream = createWriteStream('', { fd, encoding: 'utf8' });
  const recorder = recordTranscript(connection, { side, sink: stream, keep: false });
  return {
    ...recorder,
    close: () =>
      new Promise<void>((resolve, reject) => {
        recorder.dispose();
        stream.once('error', reject);
        stream.end(() => resolve());
      }),
  };
}
