import type { SessionId, UpdateKind } from '@acp-kit/schema';
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

/** The ID lists of a {@link ConversationChange}. */
type IdList = 'messageKeys' | 'toolCallIds' | 'planIds' | 'terminalIds' | 'compactionIds' | 'subagentIds';
/** The flags of a {@link ConversationChange} an update kind sets. */
type Flag =
  | 'stateChanged'
  | 'contextUsageChanged'
  | 'configOptionsChanged'
  | 'availableCommandsChanged'
  | 'sessionInfoChanged'
  | 'noticesChanged';

/**
 * Where each update kind of the schema reports its change in a {@link ConversationChange}: the ID
 * list its entity's ID goes into (the kind's `idField` in the generated update-kind table; message
 * kinds report the entry's key), or the flag it sets. Typed by the generated table: a kind the
 * schema gains without a row here fails to compile.
 */
export const CHANGE_OF = {
  user_message: 'messageKeys',
  user_message_chunk: 'messageKeys',
  agent_message: 'messageKeys',
  agent_message_chunk: 'messageKeys',
  agent_thought: 'messageKeys',
  agent_thought_chunk: 'messageKeys',
  state_update: 'stateChanged',
  tool_call_update: 'toolCallIds',
  tool_call_content_chunk: 'toolCallIds',
  terminal_update: 'terminalIds',
  terminal_output_chunk: 'terminalIds',
  plan_update: 'planIds',
  plan_removed: 'planIds',
  available_commands_update: 'availableCommandsChanged',
  config_option_update: 'configOptionsChanged',
  session_info_update: 'sessionInfoChanged',
  usage_update: 'contextUsageChanged',
  notice: 'noticesChanged',
  compaction_update: 'compactionIds',
  compaction_summary_chunk: 'compactionIds',
  session_message: 'messageKeys',
  session_message_chunk: 'messageKeys',
  subagent_update: 'subagentIds',
} as const satisfies { readonly [K in UpdateKind]: IdList | Flag };

type ChangeOf = typeof CHANGE_OF;
/** The kinds whose change is an entity ID (messages aside: they report entry keys, see {@link SessionChanges.message}). */
export type EntityKind = {
  [K in UpdateKind]: ChangeOf[K] extends Exclude<IdList, 'messageKeys'> ? K : never;
}[UpdateKind];
/** The kinds whose change is a flag. */
export type FlagKind = { [K in UpdateKind]: ChangeOf[K] extends Flag ? K : never }[UpdateKind];

/** The lists that are always present in a change (empty when untouched); the others only when set. */
const ALWAYS_LISTED: readonly IdList[] = ['messageKeys', 'toolCallIds', 'planIds'];
const SOMETIMES_LISTED: readonly IdList[] = ['terminalIds', 'compactionIds', 'subagentIds'];
/** The flags that are always present (false when unset); the others only when set. */
const ALWAYS_FLAGGED = ['stateChanged', 'contextUsageChanged'] as const;
const SOMETIMES_FLAGGED = [
  'configOptionsChanged',
  'availableCommandsChanged',
  'sessionInfoChanged',
  'noticesChanged',
  'backgroundChanged',
] as const;

/**
 * Mutable per-session change record filled while one batch is applied. Its key collections are
 * created on first use: a batch usually touches one message, so most stay null and cost nothing.
 */
export class SessionChanges {
  readonly #lists: Record<IdList, Keys | null> = {
    messageKeys: null,
    toolCallIds: null,
    planIds: null,
    terminalIds: null,
    compactionIds: null,
    subagentIds: null,
  };
  #otherKinds: Keys | null = null;
  readonly #flags: Record<Flag | 'backgroundChanged', boolean> = {
    stateChanged: false,
    contextUsageChanged: false,
    configOptionsChanged: false,
    availableCommandsChanged: false,
    sessionInfoChanged: false,
    noticesChanged: false,
    backgroundChanged: false,
  };
  /** An entry was added, removed or moved. */
  orderChanged = false;

  constructor(readonly sessionId: SessionId) {}

  /** Records that the message entry with this key changed. */
  message(key: string): void {
    this.#lists.messageKeys = add(this.#lists.messageKeys, key);
  }

  /** Records that the entity an update of `kind` is about changed (its list is {@link CHANGE_OF}'s). */
  entity(kind: EntityKind, id: string): void {
    const list = CHANGE_OF[kind];
    this.#lists[list] = add(this.#lists[list], id);
  }

  /** Records the change an update of `kind` makes (its flag is {@link CHANGE_OF}'s). */
  flag(kind: FlagKind): void {
    this.#flags[CHANGE_OF[kind]] = true;
  }

  /** Records that the background list changed (a part of `state_update` with a flag of its own). */
  background(): void {
    this.#flags.backgroundChanged = true;
  }

  /** Records that the kept update of this kind (one the schema does not define) changed. */
  other(kind: string): void {
    this.#otherKinds = add(this.#otherKinds, kind);
  }

  get empty(): boolean {
    if (this.orderChanged || this.#otherKinds !== null) return false;
    for (const list of ALWAYS_LISTED) if (this.#lists[list] !== null) return false;
    for (const list of SOMETIMES_LISTED) if (this.#lists[list] !== null) return false;
    for (const flag of ALWAYS_FLAGGED) if (this.#flags[flag]) return false;
    for (const flag of SOMETIMES_FLAGGED) if (this.#flags[flag]) return false;
    return true;
  }

  freeze(): ConversationChange {
    const change: { -readonly [K in keyof ConversationChange]: ConversationChange[K] } = {
      sessionId: this.sessionId,
      messageKeys: list(this.#lists.messageKeys),
      orderChanged: this.orderChanged,
      stateChanged: this.#flags.stateChanged,
      toolCallIds: list(this.#lists.toolCallIds),
      planIds: list(this.#lists.planIds),
      contextUsageChanged: this.#flags.contextUsageChanged,
    };
    // The rarer kinds appear only when they changed (no spreads: this runs once per applied batch).
    if (this.#otherKinds !== null) change.otherKinds = list(this.#otherKinds);
    for (const name of SOMETIMES_LISTED) {
      const keys = this.#lists[name];
      if (keys !== null) change[name] = list(keys);
    }
    for (const name of SOMETIMES_FLAGGED) if (this.#flags[name]) change[name] = true;
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
