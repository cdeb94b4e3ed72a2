import { UPDATE_KINDS as V2_UPDATE_KINDS, type SessionUpdate as V2SessionUpdate } from '@acp-kit/schema';
import { CompatError } from '../compat-error.js';
import {
  v2ToV1AvailableCommand,
  v2ToV1ConfigOptionUpdate,
  v2ToV1CurrentModeUpdate,
  v2ToV1NewToolCall,
  v2ToV1PlanUpdate,
  v2ToV1SessionInfoUpdate,
  v2ToV1ToolCallUpdate,
  v2ToV1UsageUpdate,
} from '../generated/compat/converters.js';
import type * as V1 from '../generated/v1/types.js';
import { UPDATE_KINDS as V1_UPDATE_KINDS } from '../generated/v1/update-kinds.js';
import { v2ModeOption } from '../mode-options.js';
import { V1_ONLY_UPDATES } from '../v1-agent-as-v2/update-to-v2.js';

const BACK_TO_V1 = new Map<string, string>(Object.entries(V1_ONLY_UPDATES).map(([v1, v2]) => [v2, v1]));

type Of<K extends string> = Extract<V2SessionUpdate, { sessionUpdate: K }>;

/** Told what part of an update (pointer into it) was left out, and why. */
export type LeftOut = (pointer: string, reason: string) => void;

/**
 * v1 knows only free-text command input and plain commands: a command v1 cannot express is left
 * out of the list (and reported), the others still reach the v1 client.
 */
function commandsToV1(update: Of<'available_commands_update'>, leftOut: LeftOut): V1.AvailableCommandsUpdate {
  const availableCommands: V1.AvailableCommand[] = [];
  update.availableCommands.forEach((command, index) => {
    try {
      availableCommands.push(v2ToV1AvailableCommand(command));
    } catch (error) {
      if (!(error instanceof CompatError)) throw error;
      const name = (command as { name?: unknown }).name;
      leftOut(`/availableCommands/${index}`, `command ${JSON.stringify(name)}: ${error.message}`);
    }
  });
  return {
    sessionUpdate: 'available_commands_update',
    availableCommands,
    ...(update._meta === undefined ? {} : { _meta: update._meta }),
  };
}

/**
 * Converts a v2 update that is neither a message update nor a state update, into the v1 updates
 * it becomes (none, one, or for a `config_option_update` with a mode option also the v1
 * `current_mode_update`). `seenToolCalls` decides between v1's tool_call (first sighting; v1
 * requires a title) and tool_call_update. A command v1 cannot express (an input of a later type,
 * say) is left out of its list and told to `leftOut`; an update v1 cannot express at all throws a
 * `CompatError`.
 */
export function v2UpdateToV1(
  update: V2SessionUpdate,
  seenToolCalls: Set<string>,
  leftOut: LeftOut = () => undefined,
): V1.SessionUpdate[] {
  switch (update.sessionUpdate) {
    case 'tool_call_update': {
      const toolCall = update as Of<'tool_call_update'>;
      if (seenToolCalls.has(toolCall.toolCallId)) return [v2ToV1ToolCallUpdate(toolCall)];
      seenToolCalls.add(toolCall.toolCallId);
      return [v2ToV1NewToolCall(toolCall)];
    }
    case 'plan_update':
      return [v2ToV1PlanUpdate(update as Of<'plan_update'>)];
    case 'usage_update':
      return [v2ToV1UsageUpdate(update as Of<'usage_update'>)];
    case 'config_option_update': {
      const options = update as Of<'config_option_update'>;
      const out: V1.SessionUpdate[] = [v2ToV1ConfigOptionUpdate(options)];
      // v1 clients that know only modes follow the mode option through current_mode_update.
      if (v2ModeOption(options.configOptions) !== undefined) out.push(v2ToV1CurrentModeUpdate(options));
      return out;
    }
    case 'available_commands_update':
      return [commandsToV1(update as Of<'available_commands_update'>, leftOut)];
    case 'session_info_update':
      return [v2ToV1SessionInfoUpdate(update as Of<'session_info_update'>)];
    default: {
      const back = BACK_TO_V1.get(update.sessionUpdate);
      if (back !== undefined) return [{ ...update, sessionUpdate: back } as V1.SessionUpdate];
      const kind: string = update.sessionUpdate;
      // A v2 kind without a v1 counterpart is not sent (the update table says why for each).
      if ((V2_UPDATE_KINDS as readonly string[]).includes(kind)) return [];
      // A kind v2 does not know (`_`-prefixed, or from a later version) travels unchanged, as v1
      // keeps unknown kinds too — unless v1 uses that name for another update.
      if ((V1_UPDATE_KINDS as readonly string[]).includes(kind)) {
        leftOut(
          '',
          `the v2 update kind ${JSON.stringify(kind)} is not v2's, and v1 uses that name for another update`,
        );
        return [];
      }
      return [update as V1.ExtensionSessionUpdate];
    }
  }
}
