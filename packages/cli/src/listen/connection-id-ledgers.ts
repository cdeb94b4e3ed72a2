import {
  closeSync,
  existsSync,
  fstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FileIdLedger } from '@acp-kit/v1-compat';

/**
 * How much ledger the gateway reads and keeps by default: 64 MiB. Records past it are not kept
 * (with a warning), and those sessions' IDs are derived on a fresh connection as without a ledger.
 */
export const DEFAULT_LEDGER_BYTES = 64 * 1024 * 1024;

/** Options of {@link ConnectionIdLedgers}. */
export interface ConnectionIdLedgersOptions {
  /**
   * The gateway's shared ledger, kept across restarts (`serve --v1 --history <file>`, in the format
   * of `bridge --history`); check it first with {@link checkLedgerFile}. Without it the shared
   * ledger lives in the temporary directory and goes when the gateway stops.
   */
  history?: string;
  /** At most this many bytes of records are merged into the shared ledger or read to seed a connection (default {@link DEFAULT_LEDGER_BYTES}). */
  maxBytes?: number;
  /** Where a warning goes (records left out at the bound). */
  warn?: (line: string) => void;
}

/** The size of a file, or 0 when it cannot be read. */
function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * The complete lines in at most `limit` bytes of a ledger file from byte `from` (a last line still
 * being written, cut short by a crash or past the limit is left out), and whether the limit cut
 * anything off.
 */
function linesOf(path: string, from: number, limit: number): { lines: string[]; cut: boolean } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return { lines: [], cut: false };
  }
  try {
    const available = Math.max(0, fstatSync(fd).size - from);
    const length = Math.min(limit, available);
    const buffer = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const n = readSync(fd, buffer, read, length - read, from + read);
      if (n === 0) break;
      read += n;
    }
    const end = buffer.lastIndexOf(0x0a, read - 1);
    const lines = end < 0 ? [] : buffer.subarray(0, end).toString('utf8').split('\n');
    return { lines: lines.filter((line) => line.trim() !== ''), cut: available > limit };
  } finally {
    closeSync(fd);
  }
}

/**
 * Checks a `serve --v1 --history` file as `bridge --history` would read it (created owner-only when
 * missing; a last line cut short by a crash is dropped): rejects with the file, the line number and
 * what was expected when a line is not a ledger record.
 */
export async function checkLedgerFile(path: string): Promise<void> {
  try {
    closeSync(openSync(path, 'a', 0o600));
  } catch (error) {
    throw new Error(`ID ledger ${path} cannot be written: ${(error as Error).message}`);
  }
  (await FileIdLedger.open(path)).close();
}

/**
 * The message-ID ledgers of `acp-kit serve --v1`: each connection runs its own bridge, and without
 * a ledger a bridge that did not see a session live can only derive IDs by position, so a message
 * the agent streamed live but does not replay would shift the IDs of the replies after it on a
 * fresh connection (and a client holding the live conversation would have content overwritten).
 * Each connection's bridge gets `--history` with a file of its own (one process per ledger file),
 * seeded with every record of the gateway's shared ledger and of its current connections, so it
 * knows what was issued live and checks content before reusing an ID. When a connection ends (or
 * the gateway stops), its records join the shared ledger and its own file goes. The connections'
 * files live in one owner-only directory under the system's temporary directory, removed by
 * {@link close}; so does the shared ledger, unless it is a `history` file kept across restarts.
 * What a peer can make the gateway hold here is bounded by `maxBytes`.
 */
export class ConnectionIdLedgers {
  readonly #dir = mkdtempSync(join(tmpdir(), 'acp-kit-serve-ids-'));
  readonly #merged: string;
  /** Each open connection's file, with the length of its seed (its bridge's own records follow). */
  readonly #live = new Map<string, number>();
  readonly #maxBytes: number;
  readonly #warn: (line: string) => void;

  constructor(options: ConnectionIdLedgersOptions = {}) {
    this.#merged =
      options.history === undefined ? join(this.#dir, 'merged.ndjson') : resolve(options.history);
    this.#maxBytes = options.maxBytes ?? DEFAULT_LEDGER_BYTES;
    this.#warn = options.warn ?? (() => {});
  }

  /**
   * The records known so far, each once, in the order first written: the shared ledger's, then
   * what each open connection's bridge added, at most `maxBytes` in all.
   */
  #known(): string[] {
    const seen = new Set<string>();
    const out: string[] = [];
    let room = this.#maxBytes;
    let cut = false;
    for (const [file, from] of [[this.#merged, 0] as const, ...this.#live]) {
      const read = linesOf(file, from, room);
      cut ||= read.cut;
      for (const line of read.lines) {
        room -= Buffer.byteLength(line) + 1;
        if (seen.has(line)) continue;
        seen.add(line);
        out.push(line);
      }
    }
    if (cut)
      this.#warn(
        `a new connection's ID ledger holds only the first ${this.#maxBytes} bytes of the records known`,
      );
    return out;
  }

  /** A new connection's ledger file, seeded with every record known. */
  open(connectionId: string | number): string {
    const file = join(this.#dir, `connection-${String(connectionId).replace(/[^A-Za-z0-9_-]/g, '_')}.ndjson`);
    const seed = this.#known()
      .map((line) => `${line}\n`)
      .join('');
    writeFileSync(file, seed, { mode: 0o600 });
    this.#live.set(file, Buffer.byteLength(seed));
    return file;
  }

  /** The connection's bridge has exited: its records join the shared ledger, and its file goes. */
  release(file: string): void {
    const from = this.#live.get(file);
    if (from === undefined) return;
    this.#live.delete(file);
    this.#merge(file, from);
    rmSync(file, { force: true });
  }

  /** Appends what the bridge added to `file` (from byte `from`) to the shared ledger, as long as it stays within `maxBytes`. */
  #merge(file: string, from: number): void {
    const seen = new Set(this.#completeShared());
    const room = this.#maxBytes - sizeOf(this.#merged);
    // Only a prefix of the records fits past the bound, never a record without the ones before it.
    const read = linesOf(file, from, Math.max(0, room));
    const added = read.lines.filter((line) => {
      if (seen.has(line)) return false;
      seen.add(line);
      return true;
    });
    // One write of whole lines: a crash leaves at most a torn last line, which readers skip.
    if (added.length > 0) writeFileSync(this.#merged, `${added.join('\n')}\n`, { flag: 'a', mode: 0o600 });
    if (read.cut)
      this.#warn(
        `ID ledger ${this.#merged} is full (bound ${this.#maxBytes} bytes): records of a connection not kept`,
      );
  }

  /** The shared ledger's complete lines; a torn last line (a write a crash cut short) is cut off, so appends start on a line of their own. */
  #completeShared(): string[] {
    let text: string;
    try {
      text = readFileSync(this.#merged, 'utf8');
    } catch {
      return [];
    }
    const lines = text.split('\n');
    const torn = lines.pop() as string;
    if (torn.length > 0) truncateSync(this.#merged, Buffer.byteLength(text) - Buffer.byteLength(torn));
    return lines.filter((line) => line.trim() !== '');
  }

  /**
   * Merges the connections still open into the shared ledger and removes the directory (call once
   * the bridges have exited, or when the process exits; again is harmless). A `history` file stays.
   */
  close(): void {
    for (const file of [...this.#live.keys()]) this.release(file);
    rmSync(this.#dir, { recursive: true, force: true });
  }

  /** The directory holding the connections' ledgers. */
  get dir(): string {
    return this.#dir;
  }

  /** The shared ledger's file. */
  get shared(): string {
    return this.#merged;
  }

  /** The ledger files in the directory (for tests). */
  files(): string[] {
    return existsSync(this.#dir) ? readdirSync(this.#dir) : [];
  }
}
