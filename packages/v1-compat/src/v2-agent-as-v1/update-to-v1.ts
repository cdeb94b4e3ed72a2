import type { SessionUpdate as V2SessionUpdate } from '@acp-kit/schema';
import {
  v2ToV1NewToolCall,
  v2ToV1PlanUpdate,
  v2ToV1ToolCallUpdate,
  v2ToV1UsageUpdate,
} from '../generated/compat/converters.js';
import type * as V1 from '../generated/v1/types.js';
import { V1_ONLY_UPDATES } from '../v1-agent-as-v2/update-to-v2.js';

const BACK_TO_V1 = new Map<string, string>(Object.entries(V1_ONLY_UPDATES).map(([v1, v2]) => [v2, v1]));

/**
 * Converts a v2 update that is neither a message update nor a state update. `seenToolCalls`
 * decides between v1's tool_call (first sighting; v1 requires a title) and tool_call_update.
 */
export function v2UpdateToV1(
  update: V2SessionUpdate,
  seenToolCalls: Set<string>,
): V1.SessionUpdate | undefined {
  switch (update.sessionUpdate) {
    case 'tool_call_update': {
      const toolCall = update as Extract<V2SessionUpdate, { sessionUpdate: 'tool_call_update' }>;
      if (seenToolCalls.has(toolCall.toolCallId)) return v2ToV1ToolCallUpdate(toolCall);
      seenToolCalls.add(toolCall.toolCallId);
      return v2ToV1NewToolCall(toolCall);
    }
    case 'plan_update':
      return v2ToV1PlanUpdate(update as Extract<V2SessionUpdate, { sessionUpdate: 'plan_update' }>);
    case 'usage_update':
      return v2ToV1UsageUpdate(update as Extract<V2SessionUpdate, { sessionUpdate: 'usage_update' }>);
    default: {
      const back = BACK_TO_V1.get(update.sessionUpdate);
      if (back !== undefined) return { ...update, sessionUpdate: back } as V1.SessionUpdate;
      return update.sessionUpdate.startsWith('_') ? (update as V1.ExtensionSessionUpdate) : undefined;
    }
  }
}
