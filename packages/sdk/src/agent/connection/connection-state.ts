import type { Implementation } from '@acp-kit/schema';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';

/**
 * What the agent knows about one client connection: whether it completed `initialize`, what the
 * client said about itself there (its capabilities are the method gate's), and whether it logged in (when the agent requires it).
 */
export class ConnectionState {
  /** Set once `initialize` was answered on this connection. */
  initialized = false;
  /** Set by a successful `auth/login`, cleared by `auth/logout`. */
  authenticated = false;
  /** The last `auth/status` state reported to this connection (answer or update), as JSON. */
  lastAuthStatus: string | undefined;
  /** The client's `info` from `initialize`. */
  clientInfo: Implementation | undefined;
  /** Whether session methods need a login first (the agent's `auth.required`). */
  readonly loginRequired: boolean;

  constructor(loginRequired: boolean) {
    this.loginRequired = loginRequired;
  }

  /**
   * Throws unless session methods may run on this connection: -32600 before `initialize`, -32000
   * (authentication required) while the agent requires a login and none succeeded.
   */
  gate(method: string): void {
    if (!this.initialized) {
      throw new RpcError(
        ErrorCodes.InvalidRequest,
        `initialize first: ${method} was received before initialize completed on this connection`,
        { pointer: '/method', expected: 'initialize' },
      );
    }
    if (this.loginRequired && !this.authenticated) {
      throw new RpcError(
        ErrorCodes.AuthRequired,
        `Authentication required: call auth/login before ${method}`,
      );
    }
  }
}
