import type { MessageId, SessionId } from '@acp-kit/schema';
import { derivedMessageId, type MessageKind } from '../message-ids.js';
import type { IdLedger, LedgerRecord } from './id-ledger.js';

/** Where a v1 chunk goes in v2 terms. */
export interface ChunkTarget {
  readonly messageId: MessageId;
  /** The chunk starts a message the client has not seen in this stream. */
  readonly isNew: boolean;
}

/** A message the bridge issued an ID for, as the ledger records it. */
interface Entry {
  readonly kind: MessageKind;
  readonly messageId: MessageId;
  v1Id: string | undefined;
  /** How many v1 chunks a replay of it spans; undefined while unknown. */
  chunks: number | undefined;
}

interface Run {
  readonly entry: Entry;
  /** The v1 ID the run's chunks carry (undefined: none). */
  readonly v1Id: string | undefined;
  /** Chunks so far. */
  count: number;
  /** The entry's chunk count is learned from this run when it ends. */
  readonly measures: boolean;
}

interface Replay {
  /** Per kind, the next entry a replayed message without a known v1 ID is matched against. */
  readonly cursor: Record<MessageKind, number>;
  /** Entries already replayed in this replay (a chunk for them is not a new message). */
  readonly seen: Set<Entry>;
}

const key = (kind: MessageKind, id: string): string => `${kind}\u0000${id}`;

/**
 * Turns a v1 session's chunk stream into v2 messages and keeps the IDs it issues in an
 * {@link IdLedger}, so that an ID names one message forever.
 *
 * Live: v1 chunks may omit `messageId`; then a run of consecutive chunks of one kind is one
 * message, and anything else in between (another kind, a tool call, a permission request, a turn
 * boundary) ends it. A message with a v1 ID keeps that ID; one without gets a derived ID (see
 * {@link derivedMessageId}) from its position among the session's issued messages of its kind —
 * positions only grow, so an ID is never issued twice.
 *
 * Replay (`session/load`): each replayed message is matched to the ledger, in order: by its v1
 * ID when the ledger knows it, else to the next issued message of its kind, whose recorded chunk
 * count says where it ends (so a reply that a permission request split live replays as the same
 * two messages even though the v1 agent replays it as one run). A replayed message the ledger has
 * no entry for gets a new ID, recorded like a live one. Records are appended by {@link persist}
 * before the IDs they describe are reported.
 */
export class MessageTracker {
  readonly #sessionId: SessionId;
  readonly #ledger: IdLedger;
  readonly #entries: Record<MessageKind, Entry[]> = {
    user_message: [],
    agent_message: [],
    agent_thought: [],
  };
  readonly #byV1Id = new Map<string, Entry>();
  readonly #pending: LedgerRecord[] = [];
  #run: Run | undefined;
  #replay: Replay | undefined;
  #epoch: string;

  /**
   * `epoch` salts derived IDs when the session's history is unknown to the ledger and cannot be
   * replayed to count positions (it is ignored once the ledger has records for the session).
   */
  constructor(sessionId: SessionId, ledger: IdLedger, epoch = '') {
    this.#sessionId = sessionId;
    this.#ledger = ledger;
    this.#epoch = epoch;
  }

  /** Reads the session's ledger; call once, before anything else. */
  async load(): Promise<void> {
    const records = await this.#ledger.read(this.#sessionId);
    if (records.length > 0) this.#epoch = '';
    for (const record of records) this.#fold(record);
  }

  #fold(record: LedgerRecord): void {
    if (record.type === 'issue') {
      const entry: Entry = {
        kind: record.kind,
        messageId: record.messageId,
        v1Id: record.v1Id,
        chunks: record.chunks,
      };
      this.#entries[record.kind].push(entry);
      if (record.v1Id !== undefined) this.#byV1Id.set(key(record.kind, record.v1Id), entry);
      return;
    }
    const entry = this.#entries[record.kind].find((e) => e.messageId === record.messageId);
    if (entry === undefined) return;
    if (record.type === 'end') entry.chunks = record.chunks;
    else {
      entry.v1Id = record.v1Id;
      this.#byV1Id.set(key(record.kind, record.v1Id), entry);
    }
  }

  #record(record: LedgerRecord): void {
    this.#fold(record);
    this.#pending.push(record);
  }

  /** Stores the records made since the last call; the IDs they describe may then be reported. */
  async persist(): Promise<void> {
    if (this.#pending.length === 0) return;
    const records = this.#pending.splice(0);
    await this.#ledger.append(this.#sessionId, records);
  }

  #issue(kind: MessageKind, v1Id: string | undefined, chunks?: number): Entry {
    const messageId =
      v1Id ?? derivedMessageId(this.#sessionId, kind, this.#entries[kind].length, this.#epoch);
    this.#record({
      type: 'issue',
      kind,
      messageId,
      ...(v1Id === undefined ? {} : { v1Id }),
      ...(chunks === undefined ? {} : { chunks }),
    });
    return this.#entries[kind].at(-1) as Entry;
  }

  /** Ends the current run: the next chunk starts a new message. */
  breakRun(): void {
    const run = this.#run;
    this.#run = undefined;
    if (run?.measures && run.entry.chunks === undefined) {
      this.#record({ type: 'end', kind: run.entry.kind, messageId: run.entry.messageId, chunks: run.count });
    }
  }

  /**
   * Starts a message the bridge itself creates: a prompt of `blocks` content blocks the v1 agent
   * did not echo. A replay is expected to bring it back as one chunk per block.
   */
  startMessage(kind: MessageKind, blocks: number): MessageId {
    this.breakRun();
    return this.#issue(kind, undefined, blocks).messageId;
  }

  /** Places one v1 chunk (live, or replayed between {@link beginReplay} and {@link endReplay}). */
  chunk(kind: MessageKind, v1IdOrNull: string | null | undefined): ChunkTarget {
    const v1Id = v1IdOrNull ?? undefined;
    return this.#replay === undefined ? this.#live(kind, v1Id) : this.#replayed(kind, v1Id, this.#replay);
  }

  #live(kind: MessageKind, v1Id: string | undefined): ChunkTarget {
    const run = this.#run;
    if (run !== undefined && run.entry.kind === kind && run.v1Id === v1Id) {
      run.count++;
      return { messageId: run.entry.messageId, isNew: false };
    }
    this.breakRun();
    const known = v1Id === undefined ? undefined : this.#byV1Id.get(key(kind, v1Id));
    if (known !== undefined) {
      // The agent went back to a message it named before: chunks append to it.
      this.#run = { entry: known, v1Id, count: 1, measures: false };
      return { messageId: known.messageId, isNew: false };
    }
    const entry = this.#issue(kind, v1Id);
    this.#run = { entry, v1Id, count: 1, measures: v1Id === undefined };
    return { messageId: entry.messageId, isNew: true };
  }

  #replayed(kind: MessageKind, v1Id: string | undefined, replay: Replay): ChunkTarget {
    const run = this.#run;
    if (
      run !== undefined &&
      run.entry.kind === kind &&
      run.v1Id === v1Id &&
      (v1Id !== undefined || run.entry.chunks === undefined || run.count < run.entry.chunks)
    ) {
      run.count++;
      return { messageId: run.entry.messageId, isNew: false };
    }
    this.breakRun();
    const entries = this.#entries[kind];
    let entry = v1Id === undefined ? undefined : this.#byV1Id.get(key(kind, v1Id));
    if (entry !== undefined) {
      replay.cursor[kind] = Math.max(replay.cursor[kind], entries.indexOf(entry) + 1);
    } else {
      const next = entries[replay.cursor[kind]];
      if (next !== undefined && (next.v1Id === undefined || v1Id === undefined)) {
        entry = next;
        replay.cursor[kind]++;
        // The agent names on load a message it did not name live: the ID issued then stays.
        if (v1Id !== undefined) this.#record({ type: 'v1', kind, messageId: next.messageId, v1Id });
      } else {
        entry = this.#issue(kind, v1Id);
        replay.cursor[kind] = entries.length;
      }
    }
    const isNew = !replay.seen.has(entry);
    replay.seen.add(entry);
    this.#run = { entry, v1Id, count: 1, measures: v1Id === undefined };
    return { messageId: entry.messageId, isNew };
  }

  /** A v1 `session/load` starts: the chunks that follow are matched against the ledger. */
  beginReplay(): void {
    this.breakRun();
    this.#replay = { cursor: { user_message: 0, agent_message: 0, agent_thought: 0 }, seen: new Set() };
  }

  /** The replay is over: new chunks are live messages again. */
  endReplay(): void {
    this.breakRun();
    this.#replay = undefined;
  }
}
