import { UPDATE_KINDS as V2_UPDATE_KINDS, type SessionUpdate as V2SessionUpdate } from '@acp-kit/schema';
import {
  v1ToV2AvailableCommandsUpdate,
  v1ToV2NewToolCall,
  v1ToV2PlanUpdate,
  v1ToV2SessionInfoUpdate,
  v1ToV2ToolCallUpdate,
  v1ToV2UsageUpdate,
} from '../generated/compat/converters.js';
import type * as V1 from '../generated/v1/types.js';
import { UPDATE_KINDS as V1_UPDATE_KINDS } from '../generated/v1/update-kinds.js';
import type { LeftOut } from '../v2-agent-as-v1/update-to-v1.js';

/**
 * The extension names earlier bridges gave v1 update kinds before they were converted natively.
 * The bridge no longer sends them; the v2 → v1 direction still accepts them from older peers.
 */
export const V1_ONLY_UPDATES = {
  available_commands_update: '_available_commands_update',
  current_mode_update: '_current_mode_update',
  config_option_update: '_config_option_update',
  session_info_update: '_session_info_update',
} as const;

/**
 * Converts a v1 update that is not a message chunk (those need message IDs and are the
 * bridge's job) nor a mode or config option change (those need the session's other options, see
 * `BridgedSession`). Both tool_call and tool_call_update become the v2 upsert tool_call_update.
 * A kind v1 does not know (`_`-prefixed, or from a later version) travels unchanged, as v2 keeps
 * unknown kinds too — unless v2 knows that name as something else: then it has no v2 form and is
 * told to `leftOut`.
 */
export function v1UpdateToV2(
  update: V1.SessionUpdate,
  leftOut: LeftOut = () => undefined,
): V2SessionUpdate | undefined {
  switch (update.sessionUpdate) {
    case 'tool_call':
      return v1ToV2NewToolCall(update as V1.NewToolCall);
    case 'tool_call_update':
      return v1ToV2ToolCallUpdate(update as V1.ToolCallUpdate);
    case 'plan':
      return v1ToV2PlanUpdate(update as V1.PlanUpdate);
    case 'usage_update':
      return v1ToV2UsageUpdate(update as V1.UsageUpdate);
    case 'available_commands_update':
      return v1ToV2AvailableCommandsUpdate(update as V1.AvailableCommandsUpdate);
    case 'session_info_update':
      return v1ToV2SessionInfoUpdate(update as V1.SessionInfoUpdate);
    case 'current_mode_update':
    case 'config_option_update':
    case 'user_message_chunk':
    case 'agent_message_chunk':
    case 'agent_thought_chunk':
      return undefined;
    default: {
      const kind: string = update.sessionUpdate;
      if (!isKnown(V1_UPDATE_KINDS, kind) && isKnown(V2_UPDATE_KINDS, kind)) {
        leftOut(
          '',
          `the v1 update kind ${JSON.stringify(kind)} is not v1's, and v2 uses that name for another update`,
        );
        return undefined;
      }
      return update as unknown as V2SessionUpdate;
    }
  }
}

function isKnown(kinds: readonly string[], kind: string): boolean {
  return kinds.includes(kind);
}
