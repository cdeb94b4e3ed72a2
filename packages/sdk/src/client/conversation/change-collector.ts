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

/** The ID lists of a {@link ConversationChange}: its fields that hold IDs (`otherKinds` holds kinds). */
type ChangeList = {
  [K in keyof ConversationChange]-?: NonNullable<ConversationChange[K]> extends readonly string[]
    ? K extends 'otherKinds'
      ? never
      : K
    : never;
}[keyof ConversationChange];
/** The flags of a {@link ConversationChange} (`orderChanged` is the store's, not a kind's). */
type ChangeFlag = {
  [K in keyof ConversationChange]-?: NonNullable<ConversationChange[K]> extends boolean
    ? K extends 'orderChanged'
      ? never
      : K
    : never;
}[keyof ConversationChange];

/**
 * Where each update kind of the schema reports its change in a {@link ConversationChange}: the ID
 * list its entity's ID goes into (the kind's `idField` in the generated update-kind table; message
 * kinds report the entry's key), or the flag it sets. Typed by the generated table: a kind the
 * schema gains without a row here fails to compile. It is the only table: the collector's lists
 * and flags are the values named here, so a kind that needs a new list or flag is a row here and
 * the field of that name in {@link ConversationChange} (a value that is not a list or flag field
 * there fails to compile).
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
} as const satisfies { readonly [K in UpdateKind]: ChangeList | ChangeFlag };

type ChangeOf = typeof CHANGE_OF;
/** The ID lists an update kind reports into: the list values of {@link CHANGE_OF}. */
type IdList = Extract<ChangeOf[UpdateKind], ChangeList>;
/** The flags an update kind sets, and `backgroundChanged` (a part of `state_update` with a flag of its own). */
type Flag = Extract<ChangeOf[UpdateKind], ChangeFlag> | 'backgroundChanged';
/** The kinds whose change is an entity ID (messages aside: they report entry keys, see {@link SessionChanges.message}). */
export type EntityKind = {
  [K in UpdateKind]: ChangeOf[K] extends Exclude<IdList, 'messageKeys'> ? K : never;
}[UpdateKind];
/** The kinds whose change is a flag. */
export type FlagKind = { [K in UpdateKind]: ChangeOf[K] extends ChangeFlag ? K : never }[UpdateKind];

/**
 * The parts every change carries (empty or false when untouched), as {@link ConversationChange}
 * requires them; every other list or flag appears only when set. A new list or flag is optional,
 * so this never grows (the compiler holds it to the interface's required fields).
 */
const ALWAYS = ['messageKeys', 'toolCallIds', 'planIds', 'stateChanged', 'contextUsageChanged'] as const;
type Always = (typeof ALWAYS)[number];
type RequiredPart = {
  [K in ChangeList | ChangeFlag]-?: undefined extends ConversationChange[K] ? never : K;
}[ChangeList | ChangeFlag];
// Compile-time: ALWAYS is exactly the required list and flag fields of ConversationChange.
const _alwaysIsRequired: [Always, RequiredPart] extends [RequiredPart, Always] ? true : never = true;
void _alwaysIsRequired;

// Compile-time: a flag's name ends in `Changed` and a list's does not, so the run-time split below holds.
const _flagsAreNamed: [ChangeFlag, ChangeList] extends [
  `${string}Changed`,
  Exclude<ChangeList, `${string}Changed`>,
]
  ? true
  : never = true;
void _flagsAreNamed;

// Compile-time: every list and flag field of ConversationChange is one some kind reports.
const _everyPartReported: [Exclude<ChangeList | ChangeFlag, IdList | Flag>] extends [never] ? true : never =
  true;
void _everyPartReported;

const PARTS = [...new Set<IdList | Flag>([...Object.values(CHANGE_OF), 'backgroundChanged'])];
/** Whether a part of a change is a flag (see `_flagsAreNamed`). */
const IS_FLAG = (part: IdList | Flag): part is Flag => part.endsWith('Changed');
/** The lists and flags that appear in a change only when set, in {@link CHANGE_OF}'s order. */
const SOMETIMES_LISTED = PARTS.filter(
  (part): part is IdList => !IS_FLAG(part) && !ALWAYS.includes(part as Always),
);
const SOMETIMES_FLAGGED = PARTS.filter(
  (part): part is Flag => IS_FLAG(part) && !ALWAYS.includes(part as Always),
);

/**
 * Mutable per-session change record filled while one batch is applied. Its key collections are
 * created on first use: a batch usually touches one message, so most stay absent and cost nothing.
 * A list or flag is a property only once set, so {@link SessionChanges.empty} is "no property".
 */
export class SessionChanges {
  readonly #lists: { [L in IdList]?: Keys } = {};
  #otherKinds: Keys | null = null;
  readonly #flags: { [F in Flag]?: true } = {};
  /** An entry was added, removed or moved. */
  orderChanged = false;

  constructor(readonly sessionId: SessionId) {}

  /** Records that the message entry with this key changed. */
  message(key: string): void {
    this.#add('messageKeys', key);
  }

  /** Records that the entity an update of `kind` is about changed (its list is {@link CHANGE_OF}'s). */
  entity(kind: EntityKind, id: string): void {
    this.#add(CHANGE_OF[kind], id);
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

  #add(name: IdList, key: string): void {
    const keys = this.#lists[name];
    if (keys === undefined) this.#lists[name] = new Keys(key);
    else keys.add(key);
  }

  get empty(): boolean {
    if (this.orderChanged || this.#otherKinds !== null) return false;
    for (const _ in this.#lists) return false;
    for (const _ in this.#flags) return false;
    return true;
  }

  freeze(): ConversationChange {
    const lists = this.#lists;
    const flags = this.#flags;
    const change: { -readonly [K in keyof ConversationChange]: ConversationChange[K] } = {
      sessionId: this.sessionId,
      messageKeys: list(lists.messageKeys ?? null),
      orderChanged: this.orderChanged,
      stateChanged: flags.stateChanged ?? false,
      toolCallIds: list(lists.toolCallIds ?? null),
      planIds: list(lists.planIds ?? null),
      contextUsageChanged: flags.contextUsageChanged ?? false,
    };
    // The rarer parts appear only when they changed (no spreads: this runs once per applied batch).
    if (this.#otherKinds !== null) change.otherKinds = list(this.#otherKinds);
    for (const name of SOMETIMES_LISTED) {
      const keys = lists[name];
      if (keys !== undefined) change[name] = list(keys);
    }
    for (const name of SOMETIMES_FLAGGED) if (flags[name] === true) change[name] = true;
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
