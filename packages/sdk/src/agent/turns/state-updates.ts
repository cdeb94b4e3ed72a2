import type { BackgroundWork, JsonRpcError, KnownSessionUpdate, StopReason, Usage } from '@acp-kit/schema';
import type { SessionActivity } from './turn-tracker.js';

/**
 * The `state_update` that reports foreground work ended (`AgentSession.idle`): `idle` with the
 * stop reason, usage and error that were given, each left out when not.
 */
export function idleUpdate(stopReason?: StopReason, usage?: Usage, error?: JsonRpcError): KnownSessionUpdate {
  return {
    sessionUpdate: 'state_update',
    state: 'idle',
    ...(stopReason === undefined ? {} : { stopReason }),
    ...(usage === undefined ? {} : { usage }),
    ...(error === undefined ? {} : { error }),
  };
}

/**
 * The `state_update` that tells one client the session's state outside the log
 * (`AgentSession.sendStateTo`): the activity, and the background list when there is one (a copy).
 */
export function stateSnapshot(
  state: SessionActivity,
  background: readonly BackgroundWork[] | undefined,
): KnownSessionUpdate {
  return {
    sessionUpdate: 'state_update',
    state,
    ...(background === undefined ? {} : { background: [...background] }),
  };
}
