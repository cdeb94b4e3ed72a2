import type { RequestPermissionRequest, RequestPermissionResponse, SessionId } from '@acp-kit/schema';
import { askAttachedClients } from './ask-attached-clients.js';
import type { ClientPeer } from '../connection/client-peer.js';

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
 * Asks the session's attached clients for permission (`session/request_permission`), `preferred`
 * alone first. A client that leaves never freezes the session: when the one asked has gone — also
 * while the request is pending — every other attached client is asked at once and the first answer
 * wins (the request is withdrawn from the rest), so a client that stays silent cannot keep the
 * others from answering; with none left (or once `signal` aborts, which withdraws the request with
 * `$/cancel_request`) the outcome is `cancelled`, so the work goes on to its stop reason. An answer
 * that is not a permission outcome fails with -32603.
 */
export async function askPermission(
  params: Omit<RequestPermissionRequest, 'sessionId'>,
  ask: PermissionAsk,
): Promise<RequestPermissionResponse> {
  const { preferred, audience } = ask;
  return askAttachedClients<RequestPermissionResponse>(
    {
      candidates: (asked) => {
        const left = [...audience.peers()].filter((peer) => peer.open && !asked.has(peer));
        return preferred?.open && audience.isAttached(preferred) && !asked.has(preferred)
          ? [preferred, ...left.filter((peer) => peer !== preferred)]
          : left;
      },
      ask: (peer, withdraw) =>
        peer.request('session/request_permission', { ...params, sessionId: ask.sessionId }, withdraw),
      isAnswer: isPermissionResponse,
      invalid: 'The client answered the permission request without an outcome.',
      cancelled: CANCELLED,
      beforeAsking: () => ask.beforeAsking(),
    },
    ask.signal,
  );
}

function isPermissionResponse(value: unknown): value is RequestPermissionResponse {
  const outcome = (value as { outcome?: { outcome?: unknown } } | null)?.outcome;
  return typeof outcome === 'object' && outcome !== null && typeof outcome.outcome === 'string';
}
