import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The complete lines of a ledger file (a last line still being written is left out). */
function completeLines(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  const lines = text.split('\n');
  lines.pop();
  return lines.filter((line) => line.trim() !== '');
}

/**
 * The message-ID ledgers of `acp-kit serve --v1`: each connection runs its own bridge, and without
 * a ledger a bridge that did not see a session live can only derive IDs by position, so a message
 * the agent streamed live but does not replay would shift the IDs of the replies after it on a
 * fresh connection (and a client holding the live conversation would have content overwritten).
 * Each connection's bridge gets `--history` with a file of its own (one process per ledger file),
 * seeded with every record the gateway's earlier and current connections have written, so it knows
 * what was issued live and checks content before reusing an ID. When a connection ends, its records
 * join the gateway's merged file and its own file goes. Everything lives in one owner-only
 * directory under the system's temporary directory, removed by {@link close}.
 */
export class ConnectionIdLedgers {
  readonly #dir = mkdtempSync(join(tmpdir(), 'acp-kit-serve-ids-'));
  readonly #merged = join(this.#dir, 'merged.ndjson');
  readonly #live = new Set<string>();

  /** The records known so far, each once, in the order first written. */
  #known(): string[] {
    const seen = new Set<string>();
    const out: string[] = [];
    for (const file of [this.#merged, ...this.#live]) {
      for (const line of completeLines(file)) {
        if (seen.has(line)) continue;
        seen.add(line);
        out.push(line);
      }
    }
    return out;
  }

  /** A new connection's ledger file, seeded with every record known. */
  open(connectionId: string | number): string {
    const file = join(this.#dir, `connection-${String(connectionId).replace(/[^A-Za-z0-9_-]/g, '_')}.ndjson`);
    const known = this.#known();
    writeFileSync(file, known.length === 0 ? '' : `${known.join('\n')}\n`, { mode: 0o600 });
    this.#live.add(file);
    return file;
  }

  /** The connection's bridge has exited: its records join the merged file, and its file goes. */
  release(file: string): void {
    if (!this.#live.has(file)) return;
    const seen = new Set(completeLines(this.#merged));
    const added = completeLines(file).filter((line) => {
      if (seen.has(line)) return false;
      seen.add(line);
      return true;
    });
    if (added.length > 0) writeFileSync(this.#merged, `${added.join('\n')}\n`, { flag: 'a', mode: 0o600 });
    this.#live.delete(file);
    rmSync(file, { force: true });
  }

  /** Removes the directory and everything in it (call once the bridges have exited; again is harmless). */
  close(): void {
    this.#live.clear();
    rmSync(this.#dir, { recursive: true, force: true });
  }

  /** The directory holding the ledgers. */
  get dir(): string {
    return this.#dir;
  }

  /** The ledger files in the directory (for tests). */
  files(): string[] {
    return existsSync(this.#dir) ? readdirSync(this.#dir) : [];
  }
}
