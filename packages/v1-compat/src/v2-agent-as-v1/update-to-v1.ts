import type { SessionUpdate as V2SessionUpdate } from '@acp-kit/schema';
import {
  v2ToV1AvailableCommandsUpdate,
  v2ToV1ConfigOptionUpdate,
  v2ToV1CurrentModeUpdate,
  v2ToV1NewToolCall,
  v2ToV1PlanUpdate,
  v2ToV1SessionInfoUpdate,
  v2ToV1ToolCallUpdate,
  v2ToV1UsageUpdate,
} from '../generated/compat/converters.js';
import type * as V1 from '../generated/v1/types.js';
import { v2ModeOption } from '../mode-options.js';
import { V1_ONLY_UPDATES } from '../v1-agent-as-v2/update-to-v2.js';

const BACK_TO_V1 = new Map<string, string>(Object.entries(V1_ONLY_UPDATES).map(([v1, v2]) => [v2, v1]));

type Of<K extends string> = Extract<V2SessionUpdate, { sessionUpdate: K }>;

/**
 * Converts a v2 update that is neither a message update nor a state update, into the v1 updates
 * it becomes (none, one, or for a `config_option_update` with a mode option also the v1
 * `current_mode_update`). `seenToolCalls` decides between v1's tool_call (first sighting; v1
 * requires a title) and tool_call_update. An update v1 cannot express (a command input of a
 * later type, say) throws a `CompatError`.
 */
export function v2UpdateToV1(update: V2SessionUpdate, seenToolCalls: Set<string>): V1.SessionUpdate[] {
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
      return [v2ToV1AvailableCommandsUpdate(update as Of<'available_commands_update'>)];
    case 'session_info_update':
      return [v2ToV1SessionInfoUpdate(update as Of<'session_info_update'>)];
    default: {
      const back = BACK_TO_V1.get(update.sessionUpdate);
      if (back !== undefined) return [{ ...update, sessionUpdate: back } as V1.SessionUpdate];
      return update.sessionUpdate.startsWith('_') ? [update as V1.ExtensionSessionUpdate] : [];
    }
  }
}
