import type {
  AvailableCommand,
  ChunkedUpdateKind,
  ContentBlock,
  MessageId,
  SessionConfigOption,
  SessionId,
  StopReason,
  UpdateKindKeyedBy,
  Usage,
} from '@acp-kit/schema';

/**
 * The message kinds of an ACP conversation (`user_message`, `agent_message`, `agent_thought`); each
 * has its own `messageId` space. Derived from the generated update-kind table: the kinds keyed by
 * `messageId` that chunks append to.
 */
export type MessageKind = Extract<ChunkedUpdateKind, UpdateKindKeyedBy<'messageId'>>;

/**
 * Where a feed entry comes from.
 * - `agent`: the agent reported this `messageId` (possibly a message this client submitted; see `localId`).
 * - `local-pending`: an optimistic submission the agent has not reported yet.
 * - `local-unknown`: the connection was lost before a response; the outcome is unknown and is never guessed.
 * - `local-failed`: the prompt request was rejected; nothing was inserted.
 */
export type MessageOrigin = 'agent' | 'local-pending' | 'local-unknown' | 'local-failed';

/** `_meta` as stored on a message: the merge of every update's `_meta` object, or null when none carried one. */
export type StoredMeta = Readonly<Record<string, unknown>> | null;

/** One immutable entry of a conversation snapshot. */
export interface ConversationMessage {
  /** Stable key for UI lists: `<kind>:<messageId>` for reported messages, `local:<localId>` otherwise. */
  readonly key: string;
  /** Message kind. Local entries are always `user_message`. */
  readonly kind: MessageKind;
  /** Agent-owned ID; null for a local entry the agent has not identified. */
  readonly messageId: MessageId | null;
  /** Current content (the agent's content once it reported any; the optimistic content before). */
  readonly content: readonly ContentBlock[];
  /** Message `_meta` after applying every metadata patch. */
  readonly meta: StoredMeta;
  /**
   * The other fields the agent's upserts of this message carried, patched by the upsert rules
   * (omitted: unchanged, `null`: cleared): an inter-session message's `senderSessionId`,
   * `recipientSessionId`, `senderMessageId` and `recipientMessageId` (`session_message`, unstable),
   * or a newer protocol version's fields. Absent when there are none.
   */
  readonly fields?: Readonly<Record<string, unknown>>;
  /** Where this entry comes from. */
  readonly origin: MessageOrigin;
  /** The local submission this entry belongs to, when this client submitted it. */
  readonly localId: string | null;
  /** Why the submission failed (`local-failed` only). */
  readonly error: unknown;
  /**
   * Feed position: reported messages are ordered by when the agent first reported their ID; the
   * counter is shared with tool calls and plans so a UI can interleave them. Local entries that the
   * agent has not reported have no position yet and are listed after every reported message.
   */
  readonly position: number | null;
}

/**
 * Work state of a session as last reported by `state_update`: `unknown` before the first one, and
 * after an `unknown` state update (unstable: the agent cannot tell what the foreground is doing —
 * show the earlier state, if at all, as last known only).
 */
export type WorkState = 'unknown' | 'running' | 'idle' | 'requires_action' | `_${string}`;

/** Whether the SDK currently has a live connection to the agent owning the session. */
export type ConnectionState = 'connected' | 'disconnected';

/** Aggregate session state derived from `state_update` and the SDK's connection reports. */
export interface SessionStateView {
  /** Last reported work state. */
  readonly state: WorkState;
  /** Stop reason of the last `idle` report that carried one (kept across later running states). */
  readonly stopReason: StopReason | null;
  /** Turn usage of the last `idle` report that carried one. */
  readonly usage: Usage | null;
  /**
   * Number of completed turns seen: transitions from a non-idle state (`running`, `requires_action`
   * or an extension state) into `idle` whose update carries a stop reason. A repeated `idle` is an
   * aggregate snapshot, not a second completion; an `idle` seen first (e.g. right after attaching) is
   * not counted either.
   */
  readonly completedTurns: number;
  /** Connection as set by the SDK; a killed agent is `disconnected`, not `idle`. */
  readonly connection: ConnectionState;
}

/**
 * Latest known state of one tool call: every `tool_call_update` applied by the upsert rules (an
 * omitted field keeps its value, `null` clears it, a value replaces it) and every
 * `tool_call_content_chunk` appended to `content`.
 */
export interface ToolCallView {
  /** Tool call ID. */
  readonly toolCallId: string;
  /**
   * The tool call's fields (`toolCallId`, `title`, `kind`, `status`, `content`, `locations`,
   * `rawInput`, …, including fields this SDK does not know, and the `sessionUpdate` tag of the last
   * `tool_call_update`). A cleared field is absent.
   */
  readonly fields: Readonly<Record<string, unknown>>;
  /** Feed position of the first update for this tool call. */
  readonly position: number;
}

/**
 * Latest known state of one display terminal: every `terminal_update` applied by the upsert rules
 * and every `terminal_output_chunk` appended to `output`.
 */
export interface TerminalView {
  /** Terminal ID. */
  readonly terminalId: string;
  /** Every field but `output` (`command`, `cwd`, `exitStatus`, `size`, `capabilities`, unknown ones); a cleared field is absent. */
  readonly fields: Readonly<Record<string, unknown>>;
  /** The output so far: the last `output.data` reported whole, then every chunk after it; null before any or once cleared. */
  readonly output: string | null;
  /** Feed position of the first update for this terminal. */
  readonly position: number;
}

/**
 * What the parent session reports about one of its subagents (unstable): every `subagent_update`
 * naming the child applied by the upsert rules. The child's own conversation is the store's
 * snapshot of `sessionId`, filled by the updates the agent sends under that ID.
 */
export interface SubagentView {
  /** The child session's ID. */
  readonly sessionId: string;
  /**
   * `title`, `description`, `capabilities`, `state` (the mirrored snapshot), `cwd`,
   * `additionalDirectories`, `_meta` and fields this SDK does not know; a cleared field is absent.
   */
  readonly fields: Readonly<Record<string, unknown>>;
  /** Feed position of the update that announced the child. */
  readonly position: number;
}

/**
 * Latest known state of one context compaction: `compaction_update`s applied by the upsert rules
 * and `compaction_summary_chunk`s appended to `summary`.
 */
export interface CompactionView {
  /** Compaction ID. */
  readonly compactionId: string;
  /** Every field but `summary` (`status`, `error`, unknown ones); a cleared field is absent. */
  readonly fields: Readonly<Record<string, unknown>>;
  /** The summary so far, or null before any or once cleared. */
  readonly summary: readonly ContentBlock[] | null;
  /** Feed position of the first update for this compaction. */
  readonly position: number;
}

/** One `notice` the agent sent (notices are events: each is kept, in order). */
export interface NoticeView {
  /** The notice as received (`severity`, `title`, `description`, unknown fields). */
  readonly notice: Readonly<Record<string, unknown>>;
  /** Feed position of the notice. */
  readonly position: number;
}

/** Latest `plan_update` received under one plan ID (a plan update replaces the plan whole; `plan_removed` drops it). */
export interface PlanView {
  /** Plan ID (`plan.planId`), or `''` for updates that carry none. */
  readonly planId: string;
  /** The whole last update for this plan. */
  readonly update: Readonly<Record<string, unknown>>;
  /** Feed position of the first update for this plan. */
  readonly position: number;
}

/**
 * The latest update of one kind the store does not know (a newer protocol version's): tolerated,
 * not applied, and kept visible instead of dropped. Extension kinds (`_`-prefixed) are not kept;
 * they are reported as `extension_update` diagnostics.
 */
export interface OtherUpdateView {
  /** The update's kind (its `sessionUpdate` tag). */
  readonly sessionUpdate: string;
  /** The whole last update of this kind, as received. */
  readonly update: Readonly<Record<string, unknown>>;
  /** Feed position of the first update of this kind. */
  readonly position: number;
}

/**
 * One piece of background work the last `state_update` listed, resolved to the terminal or tool
 * call it names. An item naming an ID the store holds no entity for is kept as an unresolved
 * reference (`resolved: false`), and resolves once that entity is reported.
 */
export interface BackgroundWorkView {
  /** The item's `type`: `terminal`, `tool_call`, or a kind this SDK does not know (kept, unresolved). */
  readonly type: string;
  /** The ID the item names (its `terminalId`, `toolCallId` or subagent `sessionId`); null for a kind this SDK does not know. */
  readonly id: string | null;
  /** The item as listed (`type`, its ID, `_meta`, fields this SDK does not know). */
  readonly item: Readonly<Record<string, unknown>>;
  /** Whether the store holds the terminal or tool call the item names. */
  readonly resolved: boolean;
  /** The terminal named, as `terminals` shows it now; null for another type or an unresolved ID. */
  readonly terminal: TerminalView | null;
  /** The tool call named, as `toolCalls` shows it now; null for another type or an unresolved ID. */
  readonly toolCall: ToolCallView | null;
  /** The subagent named (unstable), as `subagents` shows it now; null for another type or an unresolved ID. */
  readonly subagent: SubagentView | null;
}

/** An immutable view of one session's conversation. */
export interface ConversationSnapshot {
  /** Session ID. */
  readonly sessionId: SessionId;
  /** Reported messages in first-reported order, then local entries not yet reported. */
  readonly messages: readonly ConversationMessage[];
  /** Aggregate state. */
  readonly state: SessionStateView;
  /** Tool calls in first-reported order. */
  readonly toolCalls: readonly ToolCallView[];
  /** Plans in first-reported order. */
  readonly plans: readonly PlanView[];
  /** Last `usage_update` body (context window usage), or null. */
  readonly contextUsage: Readonly<Record<string, unknown>> | null;
  /** The latest update of each non-extension kind the store does not know, in first-seen order. */
  readonly otherUpdates: readonly OtherUpdateView[];
  /** Display terminals in first-reported order. */
  readonly terminals: readonly TerminalView[];
  /** Context compactions in first-reported order. */
  readonly compactions: readonly CompactionView[];
  /** The child sessions this session announced (`subagent_update`, unstable), in announcement order. */
  readonly subagents: readonly SubagentView[];
  /**
   * The session's configuration options: the last `config_option_update`, or the list a
   * `session/new`, `session/resume` or `session/set_config_option` response carried; null before any.
   */
  readonly configOptions: readonly SessionConfigOption[] | null;
  /** The commands available in the session (last `available_commands_update` or session response); null before any. */
  readonly availableCommands: readonly AvailableCommand[] | null;
  /**
   * What `session/list` reports about the session (`title`, `updatedAt`, `_meta`, unknown fields),
   * from `session_info_update`s by the upsert rules; null before any.
   */
  readonly sessionInfo: Readonly<Record<string, unknown>> | null;
  /** Every notice received, in order. A replay shows a retained notice again. */
  readonly notices: readonly NoticeView[];
  /**
   * The work running in the background now, in listed order, each item once: the `background`
   * list of the last `state_update`, resolved to `terminals` and `toolCalls`. `[]` when none runs;
   * null while the agent does not report background work (no list yet, or the last state update
   * carried none). An update of a state this SDK does not know keeps the list unless it carries one.
   */
  readonly background: readonly BackgroundWorkView[] | null;
}

/** What one applied batch changed in one session. */
export interface ConversationChange {
  /** Session that changed. */
  readonly sessionId: SessionId;
  /** Keys (`ConversationMessage.key`) of entries whose content, meta, origin or existence changed. */
  readonly messageKeys: readonly string[];
  /** True when an entry was added, removed or moved (the message list order changed). */
  readonly orderChanged: boolean;
  /** True when `state` changed. */
  readonly stateChanged: boolean;
  /** Tool call IDs updated. */
  readonly toolCallIds: readonly string[];
  /** Plan IDs updated. */
  readonly planIds: readonly string[];
  /** True when `contextUsage` changed. */
  readonly contextUsageChanged: boolean;
  /** Kinds in `otherUpdates` that changed; present only when some did. */
  readonly otherKinds?: readonly string[];
  /** Terminal IDs updated; present only when some were. */
  readonly terminalIds?: readonly string[];
  /** Compaction IDs updated; present only when some were. */
  readonly compactionIds?: readonly string[];
  /** Subagent session IDs whose `subagents` entry changed; present only when some did. */
  readonly subagentIds?: readonly string[];
  /** True when `configOptions` changed; present only then. */
  readonly configOptionsChanged?: true;
  /** True when `availableCommands` changed; present only then. */
  readonly availableCommandsChanged?: true;
  /** True when `sessionInfo` changed; present only then. */
  readonly sessionInfoChanged?: true;
  /** True when a notice was added; present only then. */
  readonly noticesChanged?: true;
  /** True when the background list changed; present only then (its terminals' and tool calls' changes are in `terminalIds` and `toolCallIds`). */
  readonly backgroundChanged?: true;
}

/** Called after each applied batch with the sessions it changed (never with an empty list). */
export type ConversationListener = (changes: readonly ConversationChange[]) => void;

/** Why the store ignored (part of) an update instead of applying it. */
export type ConversationDiagnosticCode =
  | 'unknown_update_kind'
  | 'extension_update'
  | 'malformed_update'
  | 'duplicate_message_id'
  | 'inconsistent_background';

/**
 * A non-fatal report about input the store could not apply as-is. `inconsistent_background`: a
 * `state_update`'s background list broke the schema's rules (it names a terminal or tool call no
 * update announced, lists an item twice, or drops one before its final status); the store kept the
 * message and shows what it can (see {@link ConversationSnapshot.background}).
 */
export interface ConversationDiagnostic {
  /** Machine-readable reason. */
  readonly code: ConversationDiagnosticCode;
  /** Session the input belonged to. */
  readonly sessionId: SessionId;
  /** Human-readable explanation. */
  readonly message: string;
  /** The `sessionUpdate` tag involved, when there is one. */
  readonly sessionUpdate?: string;
}

/** Options for {@link ConversationStore}. */
export interface ConversationStoreOptions {
  /** Receives every diagnostic; by default diagnostics are dropped. */
  readonly onDiagnostic?: (diagnostic: ConversationDiagnostic) => void;
  /**
   * Holds the update kinds of upstream's unstable surface (`subagent_update`, `plan_removed`,
   * `session_message`, `session_message_chunk`) by their rules. Without it (the default) they are
   * tolerated as unknown kinds — kept in `otherUpdates` with an `unknown_update_kind` diagnostic —
   * as by a client that predates them. A `Client` created with `unstable: true` creates its store
   * with it.
   */
  readonly unstable?: boolean;
}
