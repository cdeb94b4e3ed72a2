import { closeSync, existsSync, openSync, readFileSync, truncateSync, writeSync } from 'node:fs';
import type { SessionId } from '@acp-kit/schema';
import type { IdLedger, LedgerRecord } from './id-ledger.js';

const KINDS = new Set(['user_message', 'agent_message', 'agent_thought']);

/** Why a ledger line is not a record, or undefined when it is one. */
function problem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return 'expected a JSON object';
  const line = value as { sessionId?: unknown; record?: Record<string, unknown> };
  if (typeof line.sessionId !== 'string') return '/sessionId: expected a string';
  const record = line.record;
  if (typeof record !== 'object' || record === null) return '/record: expected an object';
  if (!KINDS.has(record.kind as string)) return '/record/kind: expected a message kind';
  if (typeof record.messageId !== 'string') return '/record/messageId: expected a string';
  const count = (key: string, optional: boolean): string | undefined =>
    (optional && record[key] === undefined) ||
    (typeof record[key] === 'number' && Number.isSafeInteger(record[key]) && (record[key] as number) >= 0)
      ? undefined
      : `/record/${key}: expected a non-negative integer`;
  switch (record.type) {
    case 'issue':
      if (record.v1Id !== undefined && typeof record.v1Id !== 'string')
        return '/record/v1Id: expected a string';
      if (record.anchor !== undefined && typeof record.anchor !== 'boolean')
        return '/record/anchor: expected a boolean';
      if (record.after !== undefined && typeof record.after !== 'string')
        return '/record/after: expected a string';
      return count('chunks', true);
    case 'content':
      if (record.hash !== null && typeof record.hash !== 'string')
        return '/record/hash: expected a string or null';
      if (record.head !== undefined && typeof record.head !== 'string')
        return '/record/head: expected a string';
      return undefined;
    case 'end':
      return count('chunks', false);
    case 'v1':
      return typeof record.v1Id === 'string' ? undefined : '/record/v1Id: expected a string';
    default:
      return '/record/type: expected "issue", "end", "v1" or "content"';
  }
}

/**
 * An {@link IdLedger} in a file: one JSON line per record (`{"sessionId", "record"}`), appended
 * with a single write each, so a bridge restarted on the same file reuses every ID it issued
 * before. A last line cut short by a crash is ignored (its write never completed, so the ID it
 * describes never went out); any other line that is not a record makes {@link FileIdLedger.open}
 * fail with the file, the line number and what was expected. One bridge process per file at a time.
 */
export class FileIdLedger implements IdLedger {
  readonly #path: string;
  readonly #sessions: Map<SessionId, LedgerRecord[]>;
  #fd: number | undefined;

  private constructor(path: string, sessions: Map<SessionId, LedgerRecord[]>, fd: number) {
    this.#path = path;
    this.#sessions = sessions;
    this.#fd = fd;
  }

  /** Reads and checks the ledger at `path` (created when missing) and opens it for appending. */
  static async open(path: string): Promise<FileIdLedger> {
    const sessions = new Map<SessionId, LedgerRecord[]>();
    let text = '';
    try {
      if (existsSync(path)) text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new Error(`ID ledger ${path} cannot be read: ${(error as Error).message}`);
    }
    const lines = text.split('\n');
    // The part after the last newline is a write cut short (or nothing): it never counted.
    const complete = lines.length - 1;
    for (let i = 0; i < complete; i++) {
      const line = lines[i] as string;
      if (line.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new Error(`ID ledger ${path} is damaged: line ${i + 1} is not JSON`);
      }
      const wrong = problem(value);
      if (wrong !== undefined)
        throw new Error(`ID ledger ${path} is damaged: line ${i + 1} is not a ledger record (${wrong})`);
      const { sessionId, record } = value as { sessionId: SessionId; record: LedgerRecord };
      let stored = sessions.get(sessionId);
      if (stored === undefined) {
        stored = [];
        sessions.set(sessionId, stored);
      }
      stored.push(record);
    }
    let fd: number;
    try {
      const cut = (lines[complete] as string).length;
      if (cut > 0) truncateSync(path, Buffer.byteLength(text) - Buffer.byteLength(lines[complete] as string));
      fd = openSync(path, 'a');
    } catch (error) {
      throw new Error(`ID ledger ${path} cannot be written: ${(error as Error).message}`);
    }
    return new FileIdLedger(path, sessions, fd);
  }

  /** The file's path. */
  get path(): string {
    return this.#path;
  }

  async read(sessionId: SessionId): Promise<readonly LedgerRecord[]> {
    return [...(this.#sessions.get(sessionId) ?? [])];
  }

  async append(sessionId: SessionId, records: readonly LedgerRecord[]): Promise<void> {
    if (records.length === 0) return;
    if (this.#fd === undefined) throw new Error(`ID ledger ${this.#path} is closed`);
    const bytes = Buffer.from(records.map((record) => `${JSON.stringify({ sessionId, record })}\n`).join(''));
    let written = 0;
    while (written < bytes.length) written += writeSync(this.#fd, bytes, written);
    let stored = this.#sessions.get(sessionId);
    if (stored === undefined) {
      stored = [];
      this.#sessions.set(sessionId, stored);
    }
    stored.push(...records);
  }

  /** Closes the file. */
  close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
  }
}
