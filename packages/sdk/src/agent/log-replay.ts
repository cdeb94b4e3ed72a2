import type { SessionId, SessionUpdate } from '@acp-kit/schema';
import type { ReplayVia } from '../history/history-store.js';
import { chunkUpdate, messageChange, messageUpdate } from '../history/message-updates.js';
import type { LogEntry, SessionLog } from '../history/session-log.js';
import { replayWithReset } from './replay-resets.js';

/** How replay sends retained messages (see `AgentOptions.replay`). */
export type ReplayStyle = 'as-retained' | ReplayVia;

/** Log entries read per page during replay: few round trips, bounded memory. */
const PAGE = 1024;
/** Updates folded before they are handed out: bounds memory however long the history is. */
const WINDOW = 512;

interface Item {
  update: Record<string, unknown>;
  /** Serialized size of the whole `session/update` notification, kept up to date while folding. */
  bytes: number;
  /** The item owns its `content` array (copied on the first fold). */
  owned: boolean;
  /** The JSON text the log stored for `update` (see `LogEntry.json`), for an update replayed unchanged. */
  json?: string;
}

/** One replayed update, with its stored JSON text when it is replayed exactly as logged. */
export interface ReplayedUpdate {
  readonly update: SessionUpdate;
  readonly json: string | undefined;
}

const notificationBytes = (sessionId: SessionId, update: unknown): number =>
  Buffer.byteLength(
    JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update } }),
    'utf8',
  );

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
 * so whatever was retained can be replayed in every style. The updates come in batches of a few
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
  const seen = new Set<string>();
  const started = new Set<string>();
  let window: Item[] = [];
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
        yield window.map(replayed);
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
      const key = `${change.kind}\u0000${change.messageId}`;
      const first = !seen.has(key);
      seen.add(key);
      if (style !== 'full') {
        if (change.op === 'chunk') {
          if (first) window.push(plain(messageUpdate(change.kind, change.messageId, [])));
          window.push(logged(entry));
        } else if (style === 'chunks' && change.content !== undefined) {
          const head = messageUpdate(change.kind, change.messageId, [], change.meta);
          const chunks = change.content.map((block) => chunkUpdate(change.kind, change.messageId, block));
          if (chunks.every((c) => notificationBytes(sessionId, c) <= maxBytes)) {
            window.push(plain(head), ...chunks.map(plain));
          } else {
            window.push(logged(entry));
          }
        } else {
          window.push(logged(entry));
        }
      } else {
        const item = open.get(key);
        if (change.op === 'chunk') {
          if (item !== undefined) {
            const extra = notificationBytes(sessionId, change.block) + 1;
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
            const folded: Item = { update, bytes: notificationBytes(sessionId, update), owned: true };
            window.push(folded);
            open.set(key, folded);
          } else {
            window.push(logged(entry));
          }
          continue;
        }
        if (item !== undefined) {
          // A later whole-content update or metadata patch of a message still in the window.
          if (change.content !== undefined) {
            item.update.content = change.content;
            item.owned = false;
          }
          if (change.meta !== undefined) item.update._meta = change.meta;
          item.bytes = notificationBytes(sessionId, item.update);
          if (item.bytes > maxBytes) {
            // Cannot happen for logged updates; keep the fold honest anyway.
            open.delete(key);
          }
          continue;
        }
        const update = { ...(entry.update as unknown as Record<string, unknown>) };
        if (first && update.content === undefined) update.content = [];
        const folded: Item = { update, bytes: notificationBytes(sessionId, update), owned: false };
        window.push(folded);
        if (first || change.content !== undefined) open.set(key, folded);
      }
    }
  }
  if (window.length > 0) yield window.map(replayed);
}

function replayed(item: Item): ReplayedUpdate {
  return { update: item.update as unknown as SessionUpdate, json: item.json };
}

/** An entry replayed exactly as logged: its stored text can be sent as is. */
function logged(entry: LogEntry): Item {
  return {
    update: entry.update as unknown as Record<string, unknown>,
    bytes: 0,
    owned: false,
    json: entry.json,
  };
}

function plain(update: SessionUpdate): Item {
  return { update: update as unknown as Record<string, unknown>, bytes: 0, owned: false };
}

function own(item: Item): unknown[] {
  if (!item.owned) {
    item.update.content = [...(item.update.content as unknown[])];
    item.owned = true;
  }
  return item.update.content as unknown[];
}
