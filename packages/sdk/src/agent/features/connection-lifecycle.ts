import type { InitializeResponse } from '@acp-kit/schema';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';
import { methodContext, type MethodFeature, runHandler } from '../connection/serving.js';
import { authStatusOf, reportAuthStatus } from './auth-status.js';
import { nesInitialize } from './nes.js';

/** The protocol version this agent speaks. */
export const PROTOCOL_VERSION = 2;

/**
 * The way in and out of a connection: `initialize` (what the agent serves, from the gate) and,
 * with `auth`, `auth/login` / `auth/logout`. A logout under a required login detaches the
 * connection from its sessions. With `capabilities.auth.status` (unstable), `auth/status` answers
 * the connection's authentication state, never refused for want of a login, and a login or logout
 * that changes it is followed by `auth/status_update`.
 */
export const connectionLifecycle: MethodFeature = (agent) => {
  const auth = agent.options.auth;
  return {
    initialize: (params, _request, { state, gate }): InitializeResponse => {
      state.initialized = true;
      state.clientInfo = params.info;
      const advertised = gate.advertisement();
      const encoding = nesInitialize(agent.options.nes, params.capabilities, state);
      if (encoding !== undefined) advertised.capabilities = { ...advertised.capabilities, ...encoding };
      return { protocolVersion: PROTOCOL_VERSION, info: agent.options.info, ...advertised };
    },
    ...(auth && {
      'auth/login': async (params, request, connection) => {
        const { state } = connection;
        if (!state.initialized) state.gate('auth/login');
        const ids = auth.methods.map((method) => method.methodId);
        if (!ids.includes(params.methodId)) {
          throw new RpcError(
            ErrorCodes.InvalidParams,
            `Unknown auth method ${JSON.stringify(params.methodId)}`,
            {
              pointer: '/params/methodId',
              expected: `one of ${ids.map((id) => JSON.stringify(id)).join(', ')}`,
            },
          );
        }
        if (auth.login)
          await runHandler(agent, 'login', undefined, () =>
            auth.login!(params, methodContext(connection, request)),
          );
        state.authenticated = true;
        // After the answer: the update reports what the login changed.
        queueMicrotask(() => void reportAuthStatus(agent, connection, methodContext(connection, request)));
        return {};
      },
      'auth/logout': async (params, request, connection) => {
        const { state } = connection;
        if (!state.initialized) state.gate('auth/logout');
        if (auth.logout)
          await runHandler(agent, 'logout', undefined, () =>
            auth.logout!(params, methodContext(connection, request)),
          );
        state.authenticated = false;
        // Logged out, the connection may no longer read sessions: it stops following them.
        if (state.loginRequired) connection.detachAll();
        queueMicrotask(() => void reportAuthStatus(agent, connection, methodContext(connection, request)));
        return {};
      },
    }),
    ...(agent.capabilities.auth?.status && {
      'auth/status': async (_params, request, connection) => {
        if (!connection.state.initialized) connection.state.gate('auth/status');
        const status = await authStatusOf(agent, connection, methodContext(connection, request));
        connection.state.lastAuthStatus = JSON.stringify(status);
        return status;
      },
    }),
  };
};
