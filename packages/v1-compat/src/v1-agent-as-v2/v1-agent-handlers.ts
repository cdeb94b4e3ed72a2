import { ErrorCodes, RpcError } from '@acp-kit/sdk';
import {
  v1ToV2AuthStatusUpdateNotification,
  v1ToV2MessageMcpRequest,
  v2ToV1MessageMcpResponse,
} from '../generated/compat/converters.js';
import type * as V1 from '../generated/v1/types.js';
import type { BridgeCore } from './bridge-core.js';
import { proxyRefusal } from './features/proxy-chains.js';

/**
 * Serves what the v1 agent asks of the bridge — its session updates, permission requests, auth
 * status and MCP messages (the file-system and terminal methods are `ClientServices`'s) — reports
 * what cannot be carried, lets the sessions go when the agent does, and starts listening.
 */
export function listenToV1Agent(bridge: BridgeCore): void {
  const v1 = bridge.v1;
  v1.onNotification('session/update', (params) => {
    const session = bridge.sessions.get(params.sessionId);
    if (session === undefined) {
      bridge.holdOrphan(params.sessionId, params.update);
      return;
    }
    const child =
      params.update.sessionUpdate === 'subagent_update'
        ? bridge.child(session, params.update as V1.SubagentUpdate)
        : undefined;
    const applied = session.fromV1(params.update);
    // The child's updates wait for its announcement to reach the clients (v1 sends it first).
    child?.after(applied);
  });
  v1.onRequest('session/request_permission', (params) => {
    const session = bridge.sessions.get(params.sessionId);
    if (!session)
      throw new RpcError(ErrorCodes.ResourceNotFound, 'Session not found', { sessionId: params.sessionId });
    return session.requestPermission(params);
  });
  v1.onNotification('auth/status_update', (params) => {
    const update = v1ToV2AuthStatusUpdateNotification(params);
    for (const client of bridge.clients)
      client.sendNotification('auth/status_update', update).catch(() => undefined);
  });
  // MCP over ACP: the v1 agent reaches the MCP server a v2 client declared (type acp) by serverId.
  v1.onRequest('mcp/message', async (params, context) => {
    const client = bridge.mcpRoute(params.serverId, 'mcp/message');
    const result = await client.sendRequest('mcp/message', v1ToV2MessageMcpRequest(params), {
      signal: context.signal,
    });
    return v2ToV1MessageMcpResponse(result);
  });
  // Proxy chains are not carried (unstable in both versions): refused and reported.
  v1.onRequest('proxy/successor', () => {
    bridge.lost('proxy/successor', '', 'the v1 bridge does not carry proxy chains');
    throw proxyRefusal('proxy/successor', bridge.peer.name);
  });
  v1.onNotification('proxy/successor', () => {
    bridge.lost('proxy/successor', '', 'the v1 bridge does not carry proxy chains (notification dropped)');
  });
  reportInvalidNotifications(bridge);
  bridge.closed.then((reason) => {
    const error = new RpcError(ErrorCodes.InternalError, `${bridge.peer.name} unavailable: ${reason}`);
    for (const session of bridge.sessions.values()) session.failHeld(error);
    // The agent that asked for them is gone: its terminals go too.
    bridge.services?.closeAll();
  });
  v1.listen();
}

/**
 * A v1 notification that breaks the schema (a malformed update, say) is dropped by the
 * connection, which has no one to answer: the bridge reports it as a loss, with the session of
 * the message it was reading (the tap sees each message just before it is handled).
 */
function reportInvalidNotifications(bridge: BridgeCore): void {
  bridge.v1.onMessage((direction, message) => {
    if (direction !== 'in') return;
    const sessionId = (message as { params?: { sessionId?: unknown } }).params?.sessionId;
    bridge.receivingSession = typeof sessionId === 'string' ? sessionId : '';
  });
  bridge.v1.onDiagnostic((diagnostic) => {
    if (diagnostic.kind !== 'invalid-notification-params' || diagnostic.method === undefined) return;
    bridge.onLoss?.({
      sessionId: bridge.receivingSession,
      in: diagnostic.method,
      pointer: diagnostic.pointer ?? '/params',
      reason: `the notification breaks v1's schema and was dropped (${diagnostic.message})`,
    });
  });
}
