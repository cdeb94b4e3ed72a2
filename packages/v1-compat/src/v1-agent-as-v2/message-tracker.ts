import type { MessageId, SessionId } from '@acp-kit/schema';
import type * as V1 from '../generated/v1/types.js';
import { derivedMessageId, type MessageKind, replyMessageId, userMessageId } from '../message-ids.js';
import { ContentHash } from './content-hash.js';
import type { IdLedger, LedgerRecord } from './id-ledger.js';

/** Where a v1 chunk goes in v2 terms. */
export interface ChunkTarget {
  readonly messageId: MessageId;
  /** The chunk starts a message the client has not seen in this stream. */
  readonly isNew: boolean;
}

/** A v1 message chunk (user, agent or thought). */
export type V1Chunk = V1.UserMessageChunk | V1.AgentMessageChunk | V1.AgentThoughtChunk;

/** A replayed message whose ID is decided: its chunks, to send under `messageId`. */
export interface ReplayedMessage {
  readonly kind: MessageKind;
  readonly messageId: MessageId;
  /** The message starts here: a client first gets it whole and empty (RFD), then the chunks. */
  readonly reset: boolean;
  readonly chunks: readonly V1Chunk[];
}

/** Told when a replay holds a message the bridge did not see live with that content. */
export type DivergenceListener = (divergence: {
  kind: MessageKind;
  messageId: MessageId;
  reason: string;
}) => void;

/** Options of {@link MessageTracker}. */
export interface MessageTrackerOptions {
  /** Salts derived IDs while the session's history is unknown (see the constructor). */
  epoch?: string;
  /** Told each replayed message that gets a new ID because it was not seen live with that content. */
  onDivergence?: DivergenceListener;
  /**
   * Characters of one replayed message held back to compare its content before its ID is chosen
   * (default 4 MiB). A longer message is replayed under a new ID as it arrives, and reported.
   */
  maxHeld?: number;
}

/** A message the bridge issued an ID for, as the ledger records it. */
interface Entry {
  readonly kind: MessageKind;
  readonly messageId: MessageId;
  v1Id: string | undefined;
  /** How many v1 chunks a replay of it spans; undefined while unknown. */
  chunks: number | undefined;
  /** Its content hash; undefined while unknown (still streaming, or recorded before hashes). */
  hash: string | undefined;
  /** The hash of its first block. */
  head: string | undefined;
  /** A prompt the bridge forwarded. */
  readonly anchor: boolean;
  /** Agent messages and thoughts: the ID of the user message they followed ('' before any). */
  readonly after: MessageId | '';
}

interface Run {
  readonly entry: Entry;
  /** The v1 ID the run's chunks carry (undefined: none). */
  readonly v1Id: string | undefined;
  /** Chunks so far. */
  count: number;
  /** The entry was issued by this run: its chunk count (when unnamed) and content are learned when it ends. */
  readonly fresh: boolean;
  readonly content: ContentHash;
}

/** A replayed message whose ID is not decided yet (or, past the hold limit, decided as new). */
interface Held {
  readonly kind: MessageKind;
  readonly v1Id: string | undefined;
  readonly chunks: V1Chunk[];
  readonly content: ContentHash;
  /** Decided as new while it still streams (it outgrew the hold). */
  streaming?: Entry;
}

interface Replay {
  /** The user message replayed last ('' before any): a new agent message is recorded as following it. */
  segment: MessageId | '';
  /**
   * The user messages since the last anchor replayed (the anchor included; '' before any): an
   * agent message is looked for among those that followed one of them, so a user entry replayed
   * between a prompt and its replies does not hide the replies.
   */
  turn: Set<MessageId | ''>;
  /** Entries already replayed in this replay: each is given to one replayed message at most. */
  readonly used: Set<Entry>;
  held: Held | undefined;
  /** The tracker knew messages of the session when the replay began (a new one is then a divergence). */
  readonly known: boolean;
}

const DEFAULT_MAX_HELD = 4 * 1024 * 1024;

const key = (kind: MessageKind, id: string): string => `${kind}\u0000${id}`;

const kindOf = (chunk: V1Chunk): MessageKind => chunk.sessionUpdate.replace(/_chunk$/, '') as MessageKind;

/** The start of a message's text, for reports. */
function preview(chunks: readonly V1Chunk[]): string {
  const text = chunks
    .map((c) =>
      (c.content as { type?: string }).type === 'text' ? (c.content as { text: string }).text : '',
    )
    .join('');
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

/**
 * Turns a v1 session's chunk stream into v2 messages and keeps the IDs it issues in an
 * {@link IdLedger}, so that an ID names one message — one content — forever.
 *
 * Live: v1 chunks may omit `messageId`; then a run of consecutive chunks of one kind is one
 * message, and anything else in between (another kind, a tool call, a permission request, a turn
 * boundary) ends it. A message with a v1 ID keeps that ID. A prompt the bridge forwarded (an
 * anchor, announced by {@link beginTurn}) gets an ID derived from its content
 * ({@link userMessageId}); an agent message or thought one derived from the anchor it follows and
 * its position in that turn ({@link replyMessageId}). When a derived ID was issued before, the
 * session-wide position fallback ({@link derivedMessageId}) is used: an ID is never issued twice.
 * The ledger keeps each message's content hash ({@link ContentHash}) and the turn it is in.
 *
 * Replay (`session/load`): a replayed message is held until it ends (bounded by `maxHeld`), then
 * reconciled with what the ledger holds, by content and structure: a user message takes the ID of
 * the first not yet replayed user message with the same content (by the agent's own v1 ID first
 * when it gives one), and opens that message's turn; an agent message or thought is looked for
 * only in the turn of the user message replayed last. An ID is reused only for the same content;
 * a message seen only in the replay gets a new ID and is told to `onDivergence`; a message seen
 * only live keeps its ID and is simply not replayed. Where the v1 agent replays without IDs, the
 * ends of messages inside one run of chunks come from the ledger (a chunk count and content that
 * match a known message, as a reply a permission request split live); a user text block right
 * after a user text block starts a new message unless the ledger knows a message that continues
 * so (agents replay each user entry as one block). Records are appended by {@link persist} before
 * the IDs they describe are reported.
 */
export class MessageTracker {
  readonly #sessionId: SessionId;
  readonly #ledger: IdLedger;
  readonly #entries: Entry[] = [];
  readonly #byId = new Map<MessageId, Entry>();
  readonly #byV1Id = new Map<string, Entry[]>();
  readonly #counts: Record<MessageKind, number> = { user_message: 0, agent_message: 0, agent_thought: 0 };
  /** Agent messages and thoughts per (kind, turn). */
  readonly #turnCounts = new Map<string, number>();
  /** User messages per content hash. */
  readonly #userHashes = new Map<string, number>();
  readonly #pending: LedgerRecord[] = [];
  readonly #onDivergence: DivergenceListener | undefined;
  readonly #maxHeld: number;
  /** The user message the live conversation is in the turn of. */
  #lastUser: MessageId | '' = '';
  /** The prompt of the turn that started, until its message is issued. */
  #prompt: { hash: string; head: string | undefined; blocks: number } | undefined;
  #run: Run | undefined;
  #replay: Replay | undefined;
  #epoch: string;

  /**
   * `options.epoch` salts derived IDs when the session's history is unknown to the ledger and
   * cannot be replayed to count positions (it is ignored once the ledger has records for the
   * session). A string is taken as the epoch, for callers of the earlier signature.
   */
  constructor(sessionId: SessionId, ledger: IdLedger, options: MessageTrackerOptions | string = {}) {
    const o = typeof options === 'string' ? { epoch: options } : options;
    this.#sessionId = sessionId;
    this.#ledger = ledger;
    this.#epoch = o.epoch ?? '';
    this.#onDivergence = o.onDivergence;
    this.#maxHeld = o.maxHeld ?? DEFAULT_MAX_HELD;
  }

  /** Reads the session's ledger; call once, before anything else. */
  async load(): Promise<void> {
    const records = await this.#ledger.read(this.#sessionId);
    if (records.length > 0) this.#epoch = '';
    for (const record of records) this.#fold(record);
  }

  #fold(record: LedgerRecord): void {
    if (record.type === 'issue') {
      const after = record.kind === 'user_message' ? '' : (record.after ?? '');
      const entry: Entry = {
        kind: record.kind,
        messageId: record.messageId,
        v1Id: record.v1Id,
        chunks: record.chunks,
        hash: undefined,
        head: undefined,
        anchor: record.anchor === true,
        after,
      };
      this.#entries.push(entry);
      this.#byId.set(entry.messageId, entry);
      this.#counts[record.kind]++;
      if (record.kind === 'user_message') this.#lastUser = entry.messageId;
      else {
        const turn = key(record.kind, after);
        this.#turnCounts.set(turn, (this.#turnCounts.get(turn) ?? 0) + 1);
      }
      if (record.v1Id !== undefined) this.#name(entry, record.v1Id);
      return;
    }
    const entry = this.#byId.get(record.messageId);
    if (entry === undefined || entry.kind !== record.kind) return;
    if (record.type === 'end') entry.chunks = record.chunks;
    else if (record.type === 'v1') {
      entry.v1Id = record.v1Id;
      this.#name(entry, record.v1Id);
    } else {
      if (entry.kind === 'user_message' && entry.hash === undefined && record.hash !== null)
        this.#userHashes.set(record.hash, (this.#userHashes.get(record.hash) ?? 0) + 1);
      entry.hash = record.hash ?? undefined;
      entry.head = record.head;
    }
  }

  #name(entry: Entry, v1Id: string): void {
    const k = key(entry.kind, v1Id);
    const named = this.#byV1Id.get(k);
    if (named === undefined) this.#byV1Id.set(k, [entry]);
    else if (!named.includes(entry)) named.push(entry);
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

  /**
   * Issues an ID for a new message: the v1 ID when it has one not issued before; else for a user
   * message with a known content its content-derived ID, for an agent message or thought its
   * turn-derived one; else (or when that was issued before) the session-wide position fallback.
   */
  #issue(
    kind: MessageKind,
    v1Id: string | undefined,
    details: { chunks?: number; hash?: string; anchor?: boolean; after: MessageId | '' },
  ): Entry {
    let messageId: MessageId | undefined = v1Id !== undefined && !this.#byId.has(v1Id) ? v1Id : undefined;
    if (messageId === undefined) {
      if (kind === 'user_message') {
        if (details.hash !== undefined) {
          const occurrence = this.#userHashes.get(details.hash) ?? 0;
          messageId = userMessageId(this.#sessionId, details.hash, occurrence, this.#epoch);
        }
      } else {
        const position = this.#turnCounts.get(key(kind, details.after)) ?? 0;
        messageId = replyMessageId(this.#sessionId, kind, details.after, position, this.#epoch);
      }
      if (messageId === undefined || this.#byId.has(messageId))
        messageId = derivedMessageId(this.#sessionId, kind, this.#counts[kind], this.#epoch);
    }
    this.#record({
      type: 'issue',
      kind,
      messageId,
      ...(v1Id === undefined ? {} : { v1Id }),
      ...(details.chunks === undefined ? {} : { chunks: details.chunks }),
      ...(details.anchor ? { anchor: true } : {}),
      ...(kind === 'user_message' ? {} : { after: details.after }),
    });
    return this.#byId.get(messageId) as Entry;
  }

  #describe(entry: Entry, content: ContentHash): void {
    this.#record({
      type: 'content',
      kind: entry.kind,
      messageId: entry.messageId,
      hash: content.digest(),
      ...(content.head === undefined ? {} : { head: content.head }),
    });
  }

  /** Ends the current run: the next chunk starts a new message. */
  breakRun(): void {
    const run = this.#run;
    this.#run = undefined;
    if (run === undefined || !run.fresh) return;
    const { entry } = run;
    if (run.v1Id === undefined && entry.chunks === undefined)
      this.#record({ type: 'end', kind: entry.kind, messageId: entry.messageId, chunks: run.count });
    if (entry.hash === undefined) this.#describe(entry, run.content);
  }

  /**
   * A turn starts: the bridge forwards `prompt` to the v1 agent. The next user message (the
   * agent's echo, or {@link startPrompt}) is this prompt, an anchor of the conversation: agent
   * messages after it count from 0 again.
   */
  beginTurn(prompt: readonly V1.ContentBlock[]): void {
    this.breakRun();
    const first = prompt[0];
    this.#prompt = {
      hash: ContentHash.of(prompt),
      head: first === undefined ? undefined : ContentHash.of([first]),
      blocks: prompt.length,
    };
  }

  /**
   * The turn's prompt was taken without an echo: it becomes a message the bridge creates. A
   * replay is expected to bring it back as one chunk per block.
   */
  startPrompt(): MessageId {
    this.breakRun();
    const prompt = this.#prompt ?? { hash: ContentHash.of([]), head: undefined, blocks: 0 };
    this.#prompt = undefined;
    const entry = this.#issue('user_message', undefined, {
      chunks: prompt.blocks,
      hash: prompt.hash,
      anchor: true,
      after: '',
    });
    this.#record({
      type: 'content',
      kind: 'user_message',
      messageId: entry.messageId,
      hash: prompt.hash,
      ...(prompt.head === undefined ? {} : { head: prompt.head }),
    });
    this.#lastUser = entry.messageId;
    return entry.messageId;
  }

  /** Places one live v1 chunk (not during a replay: see {@link replayChunk}). */
  chunk(kind: MessageKind, v1IdOrNull: string | null | undefined, content: V1.ContentBlock): ChunkTarget {
    const v1Id = v1IdOrNull ?? undefined;
    const run = this.#run;
    if (run !== undefined && run.entry.kind === kind && run.v1Id === v1Id) {
      run.count++;
      run.content.add(content);
      return { messageId: run.entry.messageId, isNew: false };
    }
    this.breakRun();
    const named = v1Id === undefined ? undefined : this.#byV1Id.get(key(kind, v1Id))?.at(-1);
    if (named !== undefined) {
      // The agent went back to a message it named before: chunks append to it, and what it says
      // as a whole is no longer known.
      if (named.hash !== undefined)
        this.#record({ type: 'content', kind, messageId: named.messageId, hash: null });
      this.#run = { entry: named, v1Id, count: 1, fresh: false, content: new ContentHash() };
      return { messageId: named.messageId, isNew: false };
    }
    const prompt = kind === 'user_message' ? this.#prompt : undefined;
    this.#prompt = kind === 'user_message' ? undefined : this.#prompt;
    const entry = this.#issue(kind, v1Id, {
      ...(prompt === undefined ? {} : { hash: prompt.hash, anchor: true }),
      after: this.#lastUser,
    });
    if (kind === 'user_message') this.#lastUser = entry.messageId;
    this.#run = { entry, v1Id, count: 1, fresh: true, content: new ContentHash().add(content) };
    return { messageId: entry.messageId, isNew: true };
  }

  /** Whether a replay is in progress. */
  get replaying(): boolean {
    return this.#replay !== undefined;
  }

  /** A v1 `session/load` starts: the chunks that follow go to {@link replayChunk}. */
  beginReplay(): void {
    this.breakRun();
    this.#replay = {
      segment: '',
      turn: new Set(['']),
      used: new Set(),
      held: undefined,
      known: this.#entries.length > 0,
    };
  }

  /**
   * Takes one replayed chunk; returns the replayed messages decided by it (a message is decided
   * when it ends, so usually the one before it), in order.
   */
  replayChunk(chunk: V1Chunk): ReplayedMessage[] {
    const replay = this.#replay;
    if (replay === undefined) throw new Error('replayChunk outside a replay');
    const kind = kindOf(chunk);
    const v1Id = chunk.messageId ?? undefined;
    const out: ReplayedMessage[] = [];
    const held = replay.held;
    if (held !== undefined && held.kind === kind && held.v1Id === v1Id) {
      if (held.streaming !== undefined) {
        held.content.add(chunk.content);
        out.push({ kind, messageId: held.streaming.messageId, reset: false, chunks: [chunk] });
        return out;
      }
      if (v1Id !== undefined || this.#continues(held, chunk.content, replay)) {
        held.chunks.push(chunk);
        held.content.add(chunk.content);
        this.#check(held, replay, out);
        return out;
      }
    }
    this.#decide(replay, out);
    replay.held = { kind, v1Id, chunks: [chunk], content: new ContentHash().add(chunk.content) };
    this.#check(replay.held, replay, out);
    return out;
  }

  /** Something other than a chunk was replayed: the held message ends. */
  replayBreak(): ReplayedMessage[] {
    const out: ReplayedMessage[] = [];
    if (this.#replay !== undefined) this.#decide(this.#replay, out);
    return out;
  }

  /** The replay is over: returns the last replayed message, if one was held; new chunks are live again. */
  endReplay(): ReplayedMessage[] {
    const out = this.replayBreak();
    if (this.#replay !== undefined) this.#lastUser = this.#replay.segment;
    this.#replay = undefined;
    return out;
  }

  /** Whether a user chunk with `content` continues the held user message (see the class comment). */
  #continues(held: Held, content: V1.ContentBlock, replay: Replay): boolean {
    if (held.kind !== 'user_message') return true;
    const blocks = held.content.blocks;
    const head = held.content.head;
    const known = this.#entries.some(
      (e) =>
        e.kind === 'user_message' &&
        !replay.used.has(e) &&
        e.head === head &&
        e.chunks !== undefined &&
        e.chunks > blocks,
    );
    if (known) return true;
    return !(ContentHash.isText(content) && held.content.lastIsText);
  }

  /** After a chunk was held: ends the message where a known one of that length and content ends, or streams it when too long. */
  #check(held: Held, replay: Replay, out: ReplayedMessage[]): void {
    if (held.v1Id === undefined) {
      // Only where the next message of its kind not replayed yet ends (a reply a permission request
      // split live, prompts replayed back to back): a prefix of a longer message is not cut off.
      const next = this.#entries.find(
        (e) => e.kind === held.kind && !replay.used.has(e) && e.hash !== undefined && this.#inTurn(e, replay),
      );
      if (next !== undefined && next.chunks === held.content.blocks) {
        const match = next.hash === held.content.digest() ? next : undefined;
        if (match !== undefined) {
          this.#emit(match, held, replay, out);
          replay.held = undefined;
          return;
        }
      }
    }
    if (held.content.size > this.#maxHeld) {
      const entry = this.#fresh(
        held,
        replay,
        `it is longer than the ${this.#maxHeld} characters the bridge holds back to compare, so it is replayed under a new ID`,
      );
      out.push({ kind: held.kind, messageId: entry.messageId, reset: true, chunks: held.chunks.splice(0) });
      held.streaming = entry;
    }
  }

  /** Whether the entry may be a replayed message of its kind now: any user message; an agent message of the current turn. */
  #inTurn(entry: Entry, replay: Replay): boolean {
    return entry.kind === 'user_message' || replay.turn.has(entry.after);
  }

  /** A user message was replayed: an anchor starts a turn, any other joins the current one. */
  #enterUser(entry: Entry, replay: Replay): void {
    replay.segment = entry.messageId;
    if (entry.anchor) replay.turn = new Set([entry.messageId]);
    else replay.turn.add(entry.messageId);
  }

  /** The first entry not replayed yet with this content where the replay is. */
  #find(kind: MessageKind, hash: string, replay: Replay): Entry | undefined {
    return this.#entries.find(
      (e) => e.kind === kind && e.hash === hash && !replay.used.has(e) && this.#inTurn(e, replay),
    );
  }

  /** Decides the held message's ID now (it ended). */
  #decide(replay: Replay, out: ReplayedMessage[]): void {
    const held = replay.held;
    replay.held = undefined;
    if (held === undefined) return;
    if (held.streaming !== undefined) {
      // Decided as new when it outgrew the hold: what it says is known now that it ended.
      const entry = held.streaming;
      if (held.v1Id === undefined)
        this.#record({
          type: 'end',
          kind: entry.kind,
          messageId: entry.messageId,
          chunks: held.content.blocks,
        });
      this.#describe(entry, held.content);
      return;
    }
    const hash = held.content.digest();
    if (held.v1Id !== undefined) {
      const named = this.#byV1Id.get(key(held.kind, held.v1Id)) ?? [];
      // The agent came back to a message it named earlier in this replay: its chunks append to it.
      const again = named.find((e) => replay.used.has(e));
      if (again !== undefined) {
        if (again.hash !== undefined)
          this.#record({ type: 'content', kind: again.kind, messageId: again.messageId, hash: null });
        out.push({ kind: held.kind, messageId: again.messageId, reset: false, chunks: held.chunks });
        return;
      }
      // By the agent's own ID: the same content, or content the ledger does not know (the agent vouches).
      const same = named.find((e) => e.hash === hash) ?? named.find((e) => e.hash === undefined);
      if (same !== undefined) {
        if (same.hash === undefined) this.#describe(same, held.content);
        this.#emit(same, held, replay, out);
        return;
      }
      // The agent names on load a message it did not name live: the ID issued then stays.
      const unnamed = this.#find(held.kind, hash, replay);
      if (unnamed !== undefined && unnamed.v1Id === undefined) {
        this.#record({ type: 'v1', kind: held.kind, messageId: unnamed.messageId, v1Id: held.v1Id });
        this.#emit(unnamed, held, replay, out);
        return;
      }
    } else {
      const match = this.#find(held.kind, hash, replay);
      if (match !== undefined) {
        this.#emit(match, held, replay, out);
        return;
      }
    }
    const entry = this.#fresh(held, replay, 'the bridge did not see it live with this content');
    this.#describe(entry, held.content);
    out.push({ kind: held.kind, messageId: entry.messageId, reset: true, chunks: held.chunks });
  }

  #emit(entry: Entry, held: Held, replay: Replay, out: ReplayedMessage[]): void {
    replay.used.add(entry);
    if (entry.kind === 'user_message') this.#enterUser(entry, replay);
    out.push({ kind: entry.kind, messageId: entry.messageId, reset: true, chunks: held.chunks });
  }

  /** Issues a new ID for a message seen only in the replay, and reports it when the session was known. */
  #fresh(held: Held, replay: Replay, why: string): Entry {
    const streaming = held.content.size > this.#maxHeld;
    // What the position rule would have given it: the next message of its kind seen live in this turn.
    const counterpart = this.#entries.find(
      (e) =>
        e.kind === held.kind && !replay.used.has(e) && e.kind !== 'user_message' && this.#inTurn(e, replay),
    );
    const entry = this.#issue(held.kind, held.v1Id, {
      ...(held.v1Id === undefined && !streaming ? { chunks: held.content.blocks } : {}),
      ...(streaming ? {} : { hash: held.content.digest() }),
      after: replay.segment,
    });
    if (held.kind === 'user_message') this.#enterUser(entry, replay);
    replay.used.add(entry);
    if (replay.known) {
      const other =
        counterpart === undefined
          ? ''
          : `; ${counterpart.messageId}, the next ${held.kind} seen live in this turn, says something else: it keeps its ID and is not replayed`;
      this.#onDivergence?.({
        kind: held.kind,
        messageId: entry.messageId,
        reason: `the replay holds a ${held.kind} (${preview(held.chunks)}) ${why}: it gets the new ID ${entry.messageId}${other}`,
      });
    }
    return entry;
  }
}
