import type { ArchiveSessionResponse } from '@acp-kit/schema';
import { ErrorCodes, RpcError } from '@acp-kit/sdk';
import {
  v1ToV2CloseSessionResponse,
  v1ToV2DeleteSessionResponse,
  v1ToV2ListSessionsResponse,
  v2ToV1CloseSessionRequest,
  v2ToV1DeleteSessionRequest,
  v2ToV1ListSessionsRequest,
} from '../../generated/compat/converters.js';
import type * as V1 from '../../generated/v1/types.js';
import type { BridgeFeature } from './index.js';
import { relay } from './relay.js';

/**
 * The sessions as a whole: `session/list` (the v1 agent's list, or the sessions the bridge holds
 * when it cannot list), `session/close`, `session/delete`, and the unstable `session/status`,
 * `session/archive` and `session/unarchive`. A session closed, deleted or archived on the v1 agent
 * is let go by the bridge.
 */
export const sessionLifecycle: BridgeFeature = (bridge) => ({
  'session/list': async (params) => {
    const caps = (await bridge.v1Capabilities()).agentCapabilities;
    if (caps?.sessionCapabilities?.list !== undefined && caps.sessionCapabilities.list !== null) {
      const page = await bridge.call(() =>
        bridge.v1.sendRequest('session/list', v2ToV1ListSessionsRequest(params)),
      );
      return v1ToV2ListSessionsResponse(page);
    }
    // The v1 agent cannot list: the bridge lists the sessions it holds (created or resumed
    // through it), on one page. Without the v1 archive capability none is archived.
    if (params.archived === 'only') return { sessions: [] };
    const cwd = params.cwd ?? undefined;
    const sessions = [...bridge.sessions.values()]
      .filter((s) => cwd === undefined || s.agentSession.cwd === cwd)
      .map((s) => ({ sessionId: s.id, cwd: s.agentSession.cwd }));
    return { sessions };
  },

  'session/close': async (params, request, link) => {
    const caps = (await bridge.v1Capabilities()).agentCapabilities;
    const session = bridge.sessions.get(params.sessionId);
    // As if session/cancel had been called (upstream's v2 draft, session-setup: MUST): the v1
    // turn is cancelled and its end reaches the session's clients before anything is closed.
    await session?.cancelForClose(request.signal);
    if (caps?.sessionCapabilities?.close !== undefined && caps.sessionCapabilities.close !== null) {
      const result = await bridge.call(() =>
        bridge.v1.sendRequest('session/close', v2ToV1CloseSessionRequest(params)),
      );
      bridge.forget(params.sessionId);
      return v1ToV2CloseSessionResponse(result);
    }
    // The v1 agent cannot close: the session stays open there (and listed); this client is detached.
    if (session === undefined)
      throw new RpcError(ErrorCodes.ResourceNotFound, 'Session not found', {
        sessionId: params.sessionId,
      });
    link.detach(session);
    return {};
  },

  // Served when the v1 agent advertises it (the gate refuses it otherwise, -32601).
  // Deleting a session the v1 agent does not know succeeds silently (upstream's v2 draft,
  // session-delete: SHOULD), whatever the v1 agent answers (-32002).
  'session/delete': async (params) => {
    let result: V1.DeleteSessionResponse;
    try {
      result = await bridge.call(() =>
        bridge.v1.sendRequest('session/delete', v2ToV1DeleteSessionRequest(params)),
      );
    } catch (error) {
      if (!(error instanceof RpcError) || error.code !== ErrorCodes.ResourceNotFound) throw error;
      result = {};
    }
    bridge.forget(params.sessionId);
    return v1ToV2DeleteSessionResponse(result);
  },

  // Unstable in both versions, each served when the v1 agent advertises its capability (the
  // gate refuses it otherwise, -32601), relayed as the generated mapping converts it.
  // v1's answer says open or saved only: the v2 answer carries no state.
  'session/status': relay(bridge, 'session/status'),

  // Archiving closes the session first in both versions: the bridge lets it go as after a
  // session/close (a client resumes it after unarchiving).
  'session/archive': async (params) => {
    const response = (await bridge.relay('session/archive', params)) as ArchiveSessionResponse;
    bridge.forget(params.sessionId);
    return response;
  },

  'session/unarchive': relay(bridge, 'session/unarchive'),
});
