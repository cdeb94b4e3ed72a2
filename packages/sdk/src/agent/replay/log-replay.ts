import type { SessionId, SessionUpdate } from '@acp-kit/schema';
import type { ReplayVia } from '../../history/history-store.js';
import { chunkUpdate, messageChange, messageUpdate } from '../../history/message-updates.js';
import type { LogEntry, SessionLog } from '../../history/session-log.js';
import { replayWithReset } from './replay-resets.js';

/** How replay sends retained messages (see `AgentOptions.replay`). */
export type ReplayStyle = 'as-retained' | ReplayVia;

/** Log entries read per page during replay: few round trips, bounded memory. */
const PAGE = 1024;
/** Updates folded before they are handed out: bounds memory however long the history is. */
const WINDOW = 512;

interface Item {
  update: Record<string, unknown>;
  /**
   * Serialized size of the whole `session/update` notification, kept up to date while folding;
   * undefined until a fold first needs it.
   */
  bytes: number | undefined;
  /** The item owns its `update` object (copied before the first change). */
  copied: boolean;
  /** The item owns its `content` array (copied on the first fold). */
  owned: boolean;
  /** The JSON text the log stored for `update` (see `LogEntry.json`), while it is replayed unchanged. */
  json?: string | undefined;
}

/** One replayed update, with its stored JSON text when it is replayed exactly as logged. */
export interface ReplayedUpdate {
  readonly update: SessionUpdate;
  readonly json: string | undefined;
}

/** The serialized size of a `session/update` notification of `sessionId`, less its update's. */
const envelopeBytes = (sessionId: SessionId): number =>
  Buffer.byteLength(
    `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":${JSON.stringify(sessionId)},"update":}}`,
    'utf8',
  );

/** Whether each message (by kind, then ID) was met before. */
class MessagesSeen {
  readonly #byKind = new Map<string, Set<string>>();

  /** Records the message; true the first time. */
  add(kind: string, messageId: string): boolean {
    let ids = this.#byKind.get(kind);
    if (ids === undefined) {
      ids = new Set();
      this.#byKind.set(kind, ids);
    }
    if (ids.has(messageId)) return false;
    ids.add(messageId);
    return true;
  }
}

/**
 * The updates that replay a session's retained log up to and including `uptoSeq`, read from the
 * log page by page. Every retained kind replays (messages, tool calls, plans, usage, extensions).
 * A tool call's content, a terminal's output and a compaction's summary are cleared by their first
 * replayed update (see `replayWithReset`), so their replayed chunks never append to a held copy either.
 * A message always starts with a whole-content update, so replayed chunks never append to a copy
 * the client already holds; with style `full` a message's chunks and replacements are folded into
 * that one update where the result fits in `maxBytes` (otherwise they follow as logged, which fit
 * when they were appended); with `chunks` a whole-content update is sent as `content: []` and one
 * chunk per block, unless a chunk would not fit. No update is ever larger than what was appended,
 * so whatever was retained can be replayed in every style. An update replayed exactly as logged
 * carries the log's stored text (`json`), which is sent as is; the fold serializes only what it
 * changes, and only to size it. The updates come in batches of a few
 * hundred, in order (one step of the generator per batch, not per update). Stops with `signal`'s
 * reason when it aborts.
 */
export async function* replayFromLog(
  log: SessionLog,
  sessionId: SessionId,
  uptoSeq: number,
  style: ReplayStyle,
  maxBytes: number,
  signal?: AbortSignal,
): AsyncGenerator<readonly ReplayedUpdate[], void, undefined> {
  const envelope = envelopeBytes(sessionId);
  /** The serialized size of the notification carrying `update`. */
  const sizeOf = (update: unknown): number => envelope + Buffer.byteLength(JSON.stringify(update), 'utf8');
  const seen = new MessagesSeen();
  const started = new Set<string>();
  let window: Item[] = [];
  /** Messages folded into an item of the current window, by `kind \0 messageId`. */
  let open = new Map<string, Item>();
  let after = 0;
  while (after < uptoSeq) {
    signal?.throwIfAborted();
    const page = await log.read(sessionId, {
      afterSeq: after,
      limit: Math.min(PAGE, uptoSeq - after),
      retainedOnly: true,
    });
    if (page.entries.length === 0) break;
    for (const entry of page.entries) {
      if (window.length >= WINDOW) {
        yield window as unknown as readonly ReplayedUpdate[];
        window = [];
        open = new Map();
      }
      if (entry.seq > uptoSeq) {
        after = uptoSeq;
        break;
      }
      after = entry.seq;
      const change = messageChange(entry.update);
      if (change === undefined) {
        const updates = replayWithReset(entry.update, started);
        if (updates.length === 1 && updates[0] === entry.update) window.push(logged(entry));
        else for (const update of updates) window.push(plain(update));
        continue;
      }
      const first = seen.add(change.kind, change.messageId);
      if (style !== 'full') {
        if (change.op === 'chunk') {
          if (first) window.push(plain(messageUpdate(change.kind, change.messageId, [])));
          window.push(logged(entry));
        } else if (style === 'chunks' && change.content !== undefined) {
          const head = messageUpdate(change.kind, change.messageId, [], change.meta);
          const chunks = change.content.map((block) => chunkUpdate(change.kind, change.messageId, block));
          if (chunks.every((c) => sizeOf(c) <= maxBytes)) {
            window.push(plain(head), ...chunks.map(plain));
          } else {
            window.push(logged(entry));
          }
        } else {
          window.push(logged(entry));
        }
        continue;
      }
      const key = `${change.kind}\u0000${change.messageId}`;
      const item = first ? undefined : open.get(key);
      if (change.op === 'chunk') {
        if (item !== undefined) {
          const extra = envelope + Buffer.byteLength(JSON.stringify(change.block), 'utf8') + 1;
          item.bytes ??= sizeOf(item.update);
          if (item.bytes + extra <= maxBytes) {
            own(item).push(change.block);
            item.bytes += extra;
            continue;
          }
          open.delete(key);
          window.push(logged(entry));
          continue;
        }
        if (first) {
          const update = messageUpdate(change.kind, change.messageId, [change.block]) as never;
          const folded: Item = { update, bytes: undefined, copied: true, owned: true };
          window.push(folded);
          open.set(key, folded);
        } else {
          window.push(logged(entry));
        }
        continue;
      }
      if (item !== undefined) {
        // A later whole-content update or metadata patch of a message still in the window.
        const update = writable(item);
        if (change.content !== undefined) {
          update.content = change.content;
          item.owned = false;
        }
        if (change.meta !== undefined) update._meta = change.meta;
        item.bytes = sizeOf(update);
        if (item.bytes > maxBytes) {
          // Cannot happen for logged updates; keep the fold honest anyway.
          open.delete(key);
        }
        continue;
      }
      // Replayed as logged (its stored text, if any) unless it is a first update without content.
      const folded: Item =
        first && change.content === undefined
          ? {
              update: { ...(entry.update as unknown as Record<string, unknown>), content: [] },
              bytes: undefined,
              copied: true,
              owned: true,
            }
          : logged(entry);
      window.push(folded);
      if (first || change.content !== undefined) open.set(key, folded);
    }
  }
  if (window.length > 0) yield window as unknown as readonly ReplayedUpdate[];
}

/** An entry replayed exactly as logged: its stored text can be sent as is. */
function logged(entry: LogEntry): Item {
  return {
    update: entry.update as unknown as Record<string, unknown>,
    bytes: undefined,
    copied: false,
    owned: false,
    json: entry.json,
  };
}

function plain(update: SessionUpdate): Item {
  return {
    update: update as unknown as Record<string, unknown>,
    bytes: undefined,
    copied: false,
    owned: false,
  };
}

/** The item's own copy of its update, to change (its stored text no longer matches). */
function writable(item: Item): Record<string, unknown> {
  if (!item.copied) {
    item.update = { ...item.update };
    item.copied = true;
  }
  item.json = undefined;
  return item.update;
}

function own(item: Item): unknown[] {
  const update = writable(item);
  if (!item.owned) {
    update.content = [...(update.content as unknown[])];
    item.owned = true;
  }
  return update.content as unknown[];
}
