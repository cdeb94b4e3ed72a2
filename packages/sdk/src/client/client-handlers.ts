/**
 * What a {@link Client} answers on its connection: the agent's `session/update`s into the store,
 * its questions (permission, elicitation) to the app's callbacks, its MCP-over-ACP messages to the
 * client's server host, and the close that marks every tracked session disconnected.
 */
import type { SessionId } from '@acp-kit/schema';
import type { McpServerHost } from '../mcp-over-acp/host.js';
import { answerUnlessWithdrawn, ELICITATION_CANCELLED, PERMISSION_CANCELLED } from './answers.js';
import type { ClientConnection, ClientOptions } from './client-options.js';
import type { ConversationStore } from './conversation/index.js';

/** What the handlers reach: the client's store, its MCP server host and the sessions it tracks. */
export interface ClientHandlerTargets {
  readonly store: ConversationStore;
  readonly mcp: McpServerHost;
  readonly sessions: ReadonlySet<SessionId>;
}

/** Installs the client's handlers on `connection` (before it listens). */
export function installClientHandlers(
  connection: ClientConnection,
  options: ClientOptions<boolean>,
  { store, mcp, sessions }: ClientHandlerTargets,
): void {
  connection.onNotification('session/update', (params) => store.apply(params));
  connection.onRequest('session/request_permission', (params, context) =>
    options.onPermission
      ? answerUnlessWithdrawn(options.onPermission, params, context.signal, PERMISSION_CANCELLED)
      : PERMISSION_CANCELLED,
  );
  connection.onRequest('elicitation/create', (params, context) =>
    options.onElicitation
      ? answerUnlessWithdrawn(options.onElicitation, params, context.signal, ELICITATION_CANCELLED)
      : ELICITATION_CANCELLED,
  );
  connection.onNotification('elicitation/complete', (params) => options.onElicitationComplete?.(params));
  connection.onNotification('auth/status_update', (params) => options.onAuthStatus?.(params));
  // Without the opt-in, mcp/message is answered -32601, as by a client that predates MCP over ACP.
  if (options.unstable)
    connection.onRequest('mcp/message', (params, context) => mcp.handle(params, context.signal));
  connection.onClose(() => {
    void mcp.closeAll();
    for (const sessionId of sessions) store.setConnection(sessionId, 'disconnected');
  });
}
