import type { AuthStatusResponse } from '@acp-kit/schema';
import type { MethodContext } from '../method-options.js';
import type { AgentHost, ConnectionHost } from '../connection/serving.js';
import { runHandler } from '../connection/serving.js';

/**
 * What `auth/status` reports on a connection: the application's `auth.status` when it gave one;
 * otherwise `authenticated` after a login, and before one `unauthenticated` when the agent
 * requires a login, `not_required` when it does not.
 */
export async function authStatusOf(
  agent: AgentHost,
  connection: ConnectionHost,
  context: MethodContext,
): Promise<AuthStatusResponse> {
  const { state } = connection;
  const own = agent.options.auth?.status;
  if (own) return runHandler(agent, 'authStatus', undefined, () => own(state.authenticated, context));
  if (state.authenticated) return { state: 'authenticated' };
  return { state: state.loginRequired ? 'unauthenticated' : 'not_required' };
}

/**
 * Sends `auth/status_update` when the agent serves `auth/status` and the state differs from the
 * last one this connection was told (by an answer or an update); a failure to compute or send it
 * never fails the login or logout that changed it.
 */
export async function reportAuthStatus(
  agent: AgentHost,
  connection: ConnectionHost,
  context: MethodContext,
): Promise<void> {
  if (!agent.capabilities.auth?.status) return;
  try {
    const status = await authStatusOf(agent, connection, context);
    const json = JSON.stringify(status);
    if (json === connection.state.lastAuthStatus) return;
    connection.state.lastAuthStatus = json;
    await connection.notify('auth/status_update', status);
  } catch {
    // Reported to onHandlerError by runHandler when the application's status failed.
  }
}
