import type { SessionId } from '@acp-kit/schema';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';
import type { ClientPeer } from './client-peer.js';

/**
 * The client of a prompt forwarded from another replica, as the owner's prompt handler sees it:
 * it is attached to that other replica, which delivers the session's updates to it from the log,
 * so nothing is sent to it from here; it cannot be asked for permission from here (a permission
 * request goes to the clients attached to the owner, or ends `cancelled` when there are none).
 */
export function forwardedPromptPeer(sessionId: SessionId): ClientPeer {
  return {
    label: `forwarded:${sessionId}`,
    open: true,
    notify: async () => undefined,
    request: async () => {
      throw new RpcError(
        ErrorCodes.InternalError,
        'the client of a forwarded prompt is attached to another replica and cannot be asked from here',
      );
    },
  };
}
