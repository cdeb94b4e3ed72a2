/**
 * The v2 → v1 update converters schema/compat/v1-v2.json names in `converterToV1`: kinds whose
 * translation needs what the bridge keeps per session (the chunks and tool calls a v1 client was
 * shown), or that become one of several v1 kinds. The generated `generated/compat/update-to-v1.ts`
 * table references them; every other kind is translated by its generated conversion or reported
 * as lost there.
 */
import type * as V2 from '@acp-kit/schema';
import type { LeftOut } from '../bridge-loss.js';
import { CompatError } from '../compat-error.js';
import {
  v2ToV1AvailableCommand,
  v2ToV1ConfigOptionUpdate,
  v2ToV1CurrentModeUpdate,
  v2ToV1NewToolCall,
  v2ToV1PlanContentUpdate,
  v2ToV1PlanUpdate,
  v2ToV1ToolCallUpdate,
} from '../generated/compat/converters.js';
import type * as V1 from '../generated/v1/types.js';
import type { MessageKind } from '../message-ids.js';
import { v2ModeOption } from '../mode-options.js';
import { advertises } from './client-advertises.js';
import { backgroundToV1, showEmbeddedTerminals, type TerminalShown } from './background-to-v1.js';
import type { ChunkWriter } from './chunk-writer.js';

export type { LeftOut };
export { terminalOutputToV1, terminalToV1 } from './background-to-v1.js';

/** What a v2 → v1 update converter may read and change: the session as the v1 client was shown it. */
export interface UpdateToV1Context {
  /** The v1 chunks already shown, per message. */
  readonly writer: ChunkWriter;
  /** Each tool call the v1 client was shown, by toolCallId, with its whole v2 content so far. */
  readonly toolCalls: Map<string, V2.ToolCallContent[]>;
  /** Each terminal the agent reported, kept to show it as a v1 tool call once it runs in the background. */
  readonly terminals: Map<string, TerminalShown>;
  /** User messages the v1 client submitted itself (it shows them already: not echoed). */
  readonly ownMessages: ReadonlySet<string>;
  /** A v1 session/load is replaying: the client's own messages go out too. */
  readonly loading: boolean;
  /** What the v1 client advertised in its initialize (undefined before it did). */
  readonly capabilities?: V1.ClientCapabilities | undefined;
  /** Told each part left out. */
  readonly leftOut: LeftOut;
}

type MessageUpdate =
  | V2.UserMessageUpdate
  | V2.UserMessageChunk
  | V2.AgentMessageUpdate
  | V2.AgentMessageChunk
  | V2.AgentThoughtUpdate
  | V2.AgentThoughtChunk;

/**
 * A v2 message update or chunk becomes v1 chunks (see {@link ChunkWriter} for replacements). A
 * user message the v1 client sent itself is not echoed. What v1 cannot show is reported: an update
 * that changes only metadata, and the clearing of content the v1 client was shown (v1 can only
 * append; an empty message it was never shown content of has nothing to show).
 */
export function messageToV1(update: MessageUpdate, context: UpdateToV1Context): V1.SessionUpdate[] {
  const kind = update.sessionUpdate.replace(/_chunk$/, '') as MessageKind;
  if (kind === 'user_message' && !context.loading && context.ownMessages.has(update.messageId)) return [];
  if (update.sessionUpdate.endsWith('_chunk'))
    return context.writer.chunk(kind, update.messageId, (update as V2.UserMessageChunk).content);
  const content = (update as V2.UserMessageUpdate).content;
  if (content === undefined) {
    if (update._meta !== undefined)
      context.leftOut('/_meta', 'v1 has no metadata-only message update: the metadata is not sent');
    return [];
  }
  const shown = context.writer.shows(kind, update.messageId);
  const out = context.writer.update(kind, update.messageId, content);
  if (shown && out.length === 0 && (content === null || content.length === 0))
    context.leftOut(
      '/content',
      'v1 can only append to a message: it has no form for cleared or empty content',
    );
  return out;
}

/**
 * v1 has no session state: `running` and `idle` are the open v1 `session/prompt` and its answer
 * (the bridge's turn watcher sees them before this), and `requires_action` is the permission or
 * elicitation request the v1 client gets itself, so they send nothing; a state from a later
 * version has no v1 form and is reported. Nor has v1 a background list: it is reported, and the
 * terminals it names reach the v1 client as tool calls from their next update (see
 * `background-to-v1.ts`).
 */
export function stateToV1(update: V2.StateUpdate, context: UpdateToV1Context): V1.SessionUpdate[] {
  const state = (update as { state?: unknown }).state;
  if (state !== 'running' && state !== 'idle' && state !== 'requires_action')
    context.leftOut(
      '/state',
      `v1 has no session state: ${JSON.stringify(state)} has no v1 form (running and idle are a v1 prompt's open request and its answer)`,
    );
  backgroundToV1((update as { background?: unknown }).background, context);
  return [];
}

/**
 * A v2 tool call upsert: the first one a v1 client sees becomes v1 `tool_call` (v1 requires a
 * title), later ones `tool_call_update`. The content is kept, for {@link toolCallContentToV1}.
 */
export function toolCallToV1(update: V2.ToolCallUpdate, context: UpdateToV1Context): V1.SessionUpdate[] {
  const shown = context.toolCalls.get(update.toolCallId);
  const content = update.content === undefined ? shown : [...(update.content ?? [])];
  context.toolCalls.set(update.toolCallId, content ?? []);
  // An embedded terminal shows as its output (v1 knows only terminals the client made itself).
  const v1Ready =
    update.content == null
      ? update
      : { ...update, content: showEmbeddedTerminals(update.toolCallId, update.content, context) };
  return [shown === undefined ? v2ToV1NewToolCall(v1Ready) : v2ToV1ToolCallUpdate(v1Ready)];
}

/**
 * v1 has no appended tool call content: the tool call's whole content so far (the chunk appended)
 * goes out as a tool call update — a v1 `tool_call` when the v1 client has not seen it yet.
 */
export function toolCallContentToV1(
  update: V2.ToolCallContentChunk,
  context: UpdateToV1Context,
): V1.SessionUpdate[] {
  const content = [...(context.toolCalls.get(update.toolCallId) ?? []), update.content];
  return toolCallToV1(
    {
      sessionUpdate: 'tool_call_update',
      toolCallId: update.toolCallId,
      content,
      ...(update._meta === undefined ? {} : { _meta: update._meta }),
    },
    context,
  );
}

/**
 * v1 knows only free-text command input and plain commands: a command v1 cannot express is left
 * out of the list (and reported), the others still reach the v1 client.
 */
export function commandsToV1(
  update: V2.AvailableCommandsUpdate,
  context: UpdateToV1Context,
): V1.SessionUpdate[] {
  const availableCommands: V1.AvailableCommand[] = [];
  update.availableCommands.forEach((command, index) => {
    try {
      availableCommands.push(v2ToV1AvailableCommand(command));
    } catch (error) {
      if (!(error instanceof CompatError)) throw error;
      const name = (command as { name?: unknown }).name;
      context.leftOut(`/availableCommands/${index}`, `command ${JSON.stringify(name)}: ${error.message}`);
    }
  });
  return [
    {
      sessionUpdate: 'available_commands_update',
      availableCommands,
      ...(update._meta === undefined ? {} : { _meta: update._meta }),
    },
  ];
}

/** v1 config_option_update; with a mode option also v1 current_mode_update, for clients that know only modes. */
export function configOptionsToV1(update: V2.ConfigOptionUpdate): V1.SessionUpdate[] {
  const out: V1.SessionUpdate[] = [v2ToV1ConfigOptionUpdate(update)];
  if (v2ModeOption(update.configOptions) !== undefined) out.push(v2ToV1CurrentModeUpdate(update));
  return out;
}

/**
 * A v2 plan goes to a v1 client that advertised the (unstable) plan capability as it is, a
 * `plan_update` naming its planId; to any other as v1's stable `plan`, which replaces the one plan
 * such a client shows (see the PlanUpdate conversion's lossy note).
 */
export function planToV1(update: V2.PlanUpdate, context: UpdateToV1Context): V1.SessionUpdate[] {
  if (advertises(context.capabilities, '/plan')) return [v2ToV1PlanContentUpdate(update)];
  return [v2ToV1PlanUpdate(update)];
}
