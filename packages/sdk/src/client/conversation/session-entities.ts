import type { AvailableCommand, ContentBlock, SessionConfigOption } from '@acp-kit/schema';
import type { SessionChanges } from './change-collector.js';
import { KeyedViews } from './keyed-views.js';
import type {
  CompactionView,
  NoticeView,
  OtherUpdateView,
  PlanView,
  SubagentView,
  TerminalView,
  ToolCallView,
} from './types.js';
import { type StoredFields, upsertFields } from './upsert-fields.js';

/** A `session/update` body seen structurally: the store trusts only what it checks. */
export type RawUpdate = { readonly sessionUpdate: string; readonly [key: string]: unknown };

/** Why an update could not be applied: the caller turns it into a `malformed_update` diagnostic. */
export type Rejection = string | null;

const TOOL_CALL_SKIP: ReadonlySet<string> = new Set();
const TERMINAL_SKIP: ReadonlySet<string> = new Set(['sessionUpdate', 'terminalId', 'output']);
const COMPACTION_SKIP: ReadonlySet<string> = new Set(['sessionUpdate', 'compactionId', 'summary']);
const SUBAGENT_SKIP: ReadonlySet<string> = new Set(['sessionUpdate', 'sessionId']);
const SESSION_INFO_SKIP: ReadonlySet<string> = new Set(['sessionUpdate']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function frozenList<T>(value: readonly T[]): readonly T[] {
  return Object.isFrozen(value) ? value : Object.freeze(value.slice());
}

/**
 * Everything of a session that is not a message or the work state: tool calls, terminals, plans,
 * compactions, configuration options, available commands, session info, usage, notices and
 * updates of unknown kinds. Each part keeps the frozen value a snapshot shows and replaces it only
 * when it changes, so snapshots share every part an update did not touch.
 */
export class SessionEntities {
  readonly toolCalls = new KeyedViews<ToolCallView>();
  readonly terminals = new KeyedViews<TerminalView>();
  readonly compactions = new KeyedViews<CompactionView>();
  readonly plans = new KeyedViews<PlanView>();
  readonly subagents = new KeyedViews<SubagentView>();
  readonly others = new KeyedViews<OtherUpdateView>();
  configOptions: readonly SessionConfigOption[] | null = null;
  availableCommands: readonly AvailableCommand[] | null = null;
  sessionInfo: StoredFields | null = null;
  contextUsage: Readonly<Record<string, unknown>> | null = null;
  notices: readonly NoticeView[] = Object.freeze([]);

  readonly #nextPosition: () => number;

  constructor(nextPosition: () => number) {
    this.#nextPosition = nextPosition;
  }

  /** `tool_call_update`: an upsert of the tool call's fields. */
  toolCall(update: RawUpdate, changes: SessionChanges | null): Rejection {
    const { toolCallId, content } = update;
    if (typeof toolCallId !== 'string') return 'tool_call_update without a string toolCallId';
    if (content !== undefined && content !== null && !Array.isArray(content)) {
      return `tool_call_update "${toolCallId}" has non-array content`;
    }
    const existing = this.toolCalls.get(toolCallId);
    const fields = upsertFields(existing?.fields ?? null, update, TOOL_CALL_SKIP);
    const position = existing?.position ?? this.#nextPosition();
    this.toolCalls.set(toolCallId, Object.freeze({ toolCallId, fields, position }));
    changes?.entity('tool_call_update', toolCallId);
    return null;
  }

  /** `tool_call_content_chunk`: appends one piece of content to the tool call's `content`. */
  toolCallContent(update: RawUpdate, changes: SessionChanges | null): Rejection {
    const { toolCallId, content } = update;
    if (typeof toolCallId !== 'string') return 'tool_call_content_chunk without a string toolCallId';
    if (!isObject(content)) return `tool_call_content_chunk "${toolCallId}" has no content object`;
    const existing = this.toolCalls.get(toolCallId);
    const stored = existing?.fields.content;
    const appended = Object.freeze([...(Array.isArray(stored) ? stored : []), content]);
    const fields = upsertFields(
      existing?.fields ?? null,
      { toolCallId, content: appended, ...(update._meta !== undefined ? { _meta: update._meta } : {}) },
      TOOL_CALL_SKIP,
    );
    const position = existing?.position ?? this.#nextPosition();
    this.toolCalls.set(toolCallId, Object.freeze({ toolCallId, fields, position }));
    changes?.entity('tool_call_content_chunk', toolCallId);
    return null;
  }

  /** `terminal_update`: an upsert of the terminal's fields; `output` replaces the text shown. */
  terminal(update: RawUpdate, changes: SessionChanges | null): Rejection {
    const { terminalId, output } = update;
    if (typeof terminalId !== 'string') return 'terminal_update without a string terminalId';
    if (output !== undefined && output !== null && !(isObject(output) && typeof output.data === 'string')) {
      return `terminal_update "${terminalId}" has output without string data`;
    }
    const existing = this.terminals.get(terminalId);
    const fields = upsertFields(existing?.fields ?? null, update, TERMINAL_SKIP);
    const text =
      output === undefined ? (existing?.output ?? null) : output === null ? null : (output.data as string);
    const position = existing?.position ?? this.#nextPosition();
    this.terminals.set(terminalId, Object.freeze({ terminalId, fields, output: text, position }));
    changes?.entity('terminal_update', terminalId);
    return null;
  }

  /** `terminal_output_chunk`: appends output (string concatenation, cheap however long the output). */
  terminalOutput(update: RawUpdate, changes: SessionChanges | null): Rejection {
    const { terminalId, data } = update;
    if (typeof terminalId !== 'string') return 'terminal_output_chunk without a string terminalId';
    if (typeof data !== 'string') return `terminal_output_chunk "${terminalId}" without string data`;
    const existing = this.terminals.get(terminalId);
    const fields = existing?.fields ?? Object.freeze({});
    const position = existing?.position ?? this.#nextPosition();
    const output = (existing?.output ?? '') + data;
    this.terminals.set(terminalId, Object.freeze({ terminalId, fields, output, position }));
    changes?.entity('terminal_output_chunk', terminalId);
    return null;
  }

  /** `compaction_update`: an upsert of the compaction's fields; `summary` replaces the summary. */
  compaction(update: RawUpdate, changes: SessionChanges | null): Rejection {
    const { compactionId, summary } = update;
    if (typeof compactionId !== 'string') return 'compaction_update without a string compactionId';
    if (summary !== undefined && summary !== null && !Array.isArray(summary)) {
      return `compaction_update "${compactionId}" has non-array summary`;
    }
    const existing = this.compactions.get(compactionId);
    const fields = upsertFields(existing?.fields ?? null, update, COMPACTION_SKIP);
    const next =
      summary === undefined
        ? (existing?.summary ?? null)
        : summary === null
          ? null
          : frozenList(summary as ContentBlock[]);
    const position = existing?.position ?? this.#nextPosition();
    this.compactions.set(compactionId, Object.freeze({ compactionId, fields, summary: next, position }));
    changes?.entity('compaction_update', compactionId);
    return null;
  }

  /**
   * `subagent_update` (unstable): announces a child session, or patches what the parent reports
   * about it (title, description, capabilities, mirrored state, cwd, directories) by the upsert
   * rules. A `state` that is neither an object nor null is refused; the rest is kept as reported.
   */
  subagent(update: RawUpdate, changes: SessionChanges | null): Rejection {
    const { sessionId, state } = update;
    if (typeof sessionId !== 'string') return 'subagent_update without a string sessionId';
    if (state !== undefined && state !== null && (!isObject(state) || typeof state.state !== 'string')) {
      return `subagent_update "${sessionId}" has a state that is not a snapshot with a string state`;
    }
    const existing = this.subagents.get(sessionId);
    const fields = upsertFields(existing?.fields ?? null, update, SUBAGENT_SKIP);
    const position = existing?.position ?? this.#nextPosition();
    this.subagents.set(sessionId, Object.freeze({ sessionId, fields, position }));
    changes?.entity('subagent_update', sessionId);
    return null;
  }

  /** `compaction_summary_chunk`: appends one block to the compaction's summary. */
  compactionSummary(update: RawUpdate, changes: SessionChanges | null): Rejection {
    const { compactionId, content } = update;
    if (typeof compactionId !== 'string') return 'compaction_summary_chunk without a string compactionId';
    if (!isObject(content)) return `compaction_summary_chunk "${compactionId}" has no content block`;
    const existing = this.compactions.get(compactionId);
    const summary = Object.freeze([...(existing?.summary ?? []), content as ContentBlock]);
    const fields = existing?.fields ?? Object.freeze({});
    const position = existing?.position ?? this.#nextPosition();
    this.compactions.set(compactionId, Object.freeze({ compactionId, fields, summary, position }));
    changes?.entity('compaction_summary_chunk', compactionId);
    return null;
  }

  /** `plan_update`: replaces the plan named by `plan.planId` (or a top-level `planId`) whole. */
  plan(update: RawUpdate, changes: SessionChanges | null): Rejection {
    const plan = update.plan;
    const id = isObject(plan) ? plan.planId : update.planId;
    const planId = typeof id === 'string' ? id : '';
    const position = this.plans.get(planId)?.position ?? this.#nextPosition();
    this.plans.set(planId, Object.freeze({ planId, update: Object.freeze({ ...update }), position }));
    changes?.entity('plan_update', planId);
    return null;
  }

  /** `plan_removed` (unstable): drops the plan named by `planId`; a plan the store does not hold changes nothing. */
  planRemoved(update: RawUpdate, changes: SessionChanges | null): Rejection {
    const { planId } = update;
    if (typeof planId !== 'string') return 'plan_removed without a string planId';
    if (this.plans.delete(planId)) changes?.entity('plan_removed', planId);
    return null;
  }

  /** `config_option_update`: replaces every option. */
  configOptionUpdate(update: RawUpdate, changes: SessionChanges | null): Rejection {
    const { configOptions } = update;
    if (!Array.isArray(configOptions)) return 'config_option_update without a configOptions array';
    this.setConfigOptions(configOptions as SessionConfigOption[], changes);
    return null;
  }

  /** Replaces the configuration options (from an update or a session response). */
  setConfigOptions(options: readonly SessionConfigOption[], changes: SessionChanges | null): void {
    this.configOptions = frozenList(options);
    changes?.flag('config_option_update');
  }

  /** `available_commands_update`: replaces the command list. */
  availableCommandsUpdate(update: RawUpdate, changes: SessionChanges | null): Rejection {
    const { availableCommands } = update;
    if (!Array.isArray(availableCommands)) {
      return 'available_commands_update without an availableCommands array';
    }
    this.setAvailableCommands(availableCommands as AvailableCommand[], changes);
    return null;
  }

  /** Replaces the available commands (from an update or a session response). */
  setAvailableCommands(commands: readonly AvailableCommand[], changes: SessionChanges | null): void {
    this.availableCommands = frozenList(commands);
    changes?.flag('available_commands_update');
  }

  /** `session_info_update`: an upsert of title, updatedAt and the rest. */
  sessionInfoUpdate(update: RawUpdate, changes: SessionChanges | null): Rejection {
    this.sessionInfo = upsertFields(this.sessionInfo, update, SESSION_INFO_SKIP);
    changes?.flag('session_info_update');
    return null;
  }

  /** `usage_update`: the context window figures, kept whole. */
  usage(update: RawUpdate, changes: SessionChanges | null): Rejection {
    this.contextUsage = Object.freeze({ ...update });
    changes?.flag('usage_update');
    return null;
  }

  /** `notice`: kept, after every earlier one. */
  notice(update: RawUpdate, changes: SessionChanges | null): Rejection {
    const notice: NoticeView = Object.freeze({
      notice: Object.freeze({ ...update }),
      position: this.#nextPosition(),
    });
    this.notices = Object.freeze([...this.notices, notice]);
    changes?.flag('notice');
    return null;
  }

  /** Keeps an update of a kind the store does not know under its kind, replacing the previous one. */
  other(tag: string, update: RawUpdate, changes: SessionChanges | null): void {
    const position = this.others.get(tag)?.position ?? this.#nextPosition();
    this.others.set(
      tag,
      Object.freeze({ sessionUpdate: tag, update: Object.freeze({ ...update }), position }),
    );
    changes?.other(tag);
  }
}
