import type { RequestPermissionRequest, RequestPermissionResponse, SessionId } from '@acp-kit/schema';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import type { ClientPeer } from './client-peer.js';

/** The session's clients as a permission request sees them (see {@link askPermission}). */
export interface PermissionAudience {
  /** The attached clients, in attach order. */
  peers(): Iterable<ClientPeer>;
  /** Whether `peer` is still attached. */
  isAttached(peer: ClientPeer): boolean;
}

/** What {@link askPermission} needs besides the request. */
export interface PermissionAsk {
  readonly sessionId: SessionId;
  /** The client to ask first (normally the one whose prompt started the work). */
  readonly preferred: ClientPeer | undefined;
  readonly audience: PermissionAudience;
  /** The turn's signal: once it aborts the request is withdrawn and the outcome is `cancelled`. */
  readonly signal: AbortSignal;
  /** Called before each client is asked (the session reports `requires_action` there). */
  beforeAsking(): Promise<void>;
}

const CANCELLED: RequestPermissionResponse = { outcome: { outcome: 'cancelled' } };

/**
 * Asks one attached client at a time for permission (`session/request_permission`), `preferred`
 * first. A client that leaves never freezes the session: when the one asked has gone — also while
 * the request is pending — the next attached client not asked yet is asked, and with none left
 * (or once `signal` aborts, which withdraws the request with `$/cancel_request`) the outcome is
 * `cancelled`, so the work goes on to its stop reason. An answer that is not a permission outcome
 * fails with -32603.
 */
export async function askPermission(
  params: Omit<RequestPermissionRequest, 'sessionId'>,
  ask: PermissionAsk,
): Promise<RequestPermissionResponse> {
  const { preferred, audience, signal } = ask;
  const asked = new Set<ClientPeer>();
  for (;;) {
    const peer =
      preferred?.open && audience.isAttached(preferred) && !asked.has(preferred)
        ? preferred
        : [...audience.peers()].find((candidate) => candidate.open && !asked.has(candidate));
    if (!peer || signal.aborted) return CANCELLED;
    asked.add(peer);
    await ask.beforeAsking();
    try {
      const answer = peer.request(
        'session/request_permission',
        { ...params, sessionId: ask.sessionId },
        signal,
      );
      // On cancel the request is withdrawn ($/cancel_request); the work does not wait for the
      // client to acknowledge that.
      const response = await Promise.race([answer, aborted(signal)]);
      if (!isPermissionResponse(response)) {
        throw new RpcError(
          ErrorCodes.InternalError,
          'The client answered the permission request without an outcome.',
        );
      }
      return response;
    } catch (error) {
      if (signal.aborted) return CANCELLED;
      // The client went away while asked: ask another one, if any is attached.
      if (!peer.open) continue;
      throw error;
    }
  }
}

function isPermissionResponse(value: unknown): value is RequestPermissionResponse {
  const outcome = (value as { outcome?: { outcome?: unknown } } | null)?.outcome;
  return typeof outcome === 'object' && outcome !== null && typeof outcome.outcome === 'string';
}

/** Resolves with a `cancelled` outcome once `signal` aborts (never, if it never does). */
function aborted(signal: AbortSignal): Promise<RequestPermissionResponse> {
  if (signal.aborted) return Promise.resolve(CANCELLED);
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(CANCELLED), { once: true }));
}
