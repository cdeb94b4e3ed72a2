import type { SessionId } from '@acp-kit/schema';
import type { ConversationChange } from './types.js';

const NONE: readonly string[] = Object.freeze([]);

/**
 * Distinct keys in insertion order. The first key is kept in a field; a set is made only for a
 * second distinct key, so the common batch (one update, one key) allocates no set.
 */
class Keys {
  readonly #first: string;
  #rest: Set<string> | null = null;

  constructor(key: string) {
    this.#first = key;
  }

  add(key: string): void {
    if (key === this.#first) return;
    this.#rest ??= new Set();
    this.#rest.add(key);
  }

  list(): readonly string[] {
    return Object.freeze(this.#rest === null ? [this.#first] : [this.#first, ...this.#rest]);
  }
}

/** Adds `key` to `keys`, creating the collection on first use. */
function add(keys: Keys | null, key: string): Keys {
  if (keys === null) return new Keys(key);
  keys.add(key);
  return keys;
}

/** The frozen list of a lazily created collection: the shared empty list when nothing was added. */
function list(keys: Keys | null): readonly string[] {
  return keys === null ? NONE : keys.list();
}

/**
 * Mutable per-session change record filled while one batch is applied. Its key collections are
 * created on first use: a batch usually touches one message, so most stay null and cost nothing.
 */
export class SessionChanges {
  #messageKeys: Keys | null = null;
  #toolCallIds: Keys | null = null;
  #planIds: Keys | null = null;
  #otherKinds: Keys | null = null;
  #terminalIds: Keys | null = null;
  #compactionIds: Keys | null = null;
  orderChanged = false;
  stateChanged = false;
  contextUsageChanged = false;
  configOptionsChanged = false;
  availableCommandsChanged = false;
  sessionInfoChanged = false;
  noticesChanged = false;
  backgroundChanged = false;

  constructor(readonly sessionId: SessionId) {}

  /** Records that the entry with this key changed. */
  message(key: string): void {
    this.#messageKeys = add(this.#messageKeys, key);
  }

  /** Records that this tool call changed. */
  toolCall(toolCallId: string): void {
    this.#toolCallIds = add(this.#toolCallIds, toolCallId);
  }

  /** Records that this plan changed. */
  plan(planId: string): void {
    this.#planIds = add(this.#planIds, planId);
  }

  /** Records that the kept update of this kind changed. */
  other(kind: string): void {
    this.#otherKinds = add(this.#otherKinds, kind);
  }

  /** Records that this terminal changed. */
  terminal(terminalId: string): void {
    this.#terminalIds = add(this.#terminalIds, terminalId);
  }

  /** Records that this compaction changed. */
  compaction(compactionId: string): void {
    this.#compactionIds = add(this.#compactionIds, compactionId);
  }

  get empty(): boolean {
    return (
      this.#messageKeys === null &&
      !this.orderChanged &&
      !this.stateChanged &&
      this.#toolCallIds === null &&
      this.#planIds === null &&
      !this.contextUsageChanged &&
      this.#otherKinds === null &&
      this.#terminalIds === null &&
      this.#compactionIds === null &&
      !this.configOptionsChanged &&
      !this.availableCommandsChanged &&
      !this.sessionInfoChanged &&
      !this.noticesChanged &&
      !this.backgroundChanged
    );
  }

  freeze(): ConversationChange {
    const change: { -readonly [K in keyof ConversationChange]: ConversationChange[K] } = {
      sessionId: this.sessionId,
      messageKeys: list(this.#messageKeys),
      orderChanged: this.orderChanged,
      stateChanged: this.stateChanged,
      toolCallIds: list(this.#toolCallIds),
      planIds: list(this.#planIds),
      contextUsageChanged: this.contextUsageChanged,
    };
    // The rarer kinds appear only when they changed (no spreads: this runs once per applied batch).
    if (this.#otherKinds !== null) change.otherKinds = list(this.#otherKinds);
    if (this.#terminalIds !== null) change.terminalIds = list(this.#terminalIds);
    if (this.#compactionIds !== null) change.compactionIds = list(this.#compactionIds);
    if (this.configOptionsChanged) change.configOptionsChanged = true;
    if (this.availableCommandsChanged) change.availableCommandsChanged = true;
    if (this.sessionInfoChanged) change.sessionInfoChanged = true;
    if (this.noticesChanged) change.noticesChanged = true;
    if (this.backgroundChanged) change.backgroundChanged = true;
    return Object.freeze(change);
  }
}

/**
 * Collects what one batch changed, per session. Only created when someone listens, so the hot
 * path without listeners allocates nothing for change tracking. Most batches touch one session,
 * kept in a field; a map is made only for a second one.
 */
export class ChangeCollector {
  #first: SessionChanges | null = null;
  #more: Map<SessionId, SessionChanges> | null = null;

  for(sessionId: SessionId): SessionChanges {
    const first = this.#first;
    if (first === null) {
      this.#first = new SessionChanges(sessionId);
      return this.#first;
    }
    if (first.sessionId === sessionId) return first;
    this.#more ??= new Map();
    let changes = this.#more.get(sessionId);
    if (changes === undefined) {
      changes = new SessionChanges(sessionId);
      this.#more.set(sessionId, changes);
    }
    return changes;
  }

  drain(): readonly ConversationChange[] {
    const out: ConversationChange[] = [];
    if (this.#first !== null && !this.#first.empty) out.push(this.#first.freeze());
    if (this.#more !== null)
      for (const changes of this.#more.values()) if (!changes.empty) out.push(changes.freeze());
    return Object.freeze(out);
  }
}
