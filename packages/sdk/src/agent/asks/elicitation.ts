import type {
  CreateElicitationRequest,
  CreateElicitationResponse,
  ElicitationFormRequest,
  ElicitationUrlRequest,
  SessionId,
  ToolCallId,
} from '@acp-kit/schema';
import { askAttachedClients } from './ask-attached-clients.js';
import type { ClientPeer } from '../connection/client-peer.js';

/** A form elicitation as the agent writes it: the session scope is filled in by the session. */
export type FormElicitation = Omit<
  Extract<ElicitationFormRequest, { mode: 'form' }>,
  'sessionId' | 'requestId' | 'toolCallId'
>;

/** A URL elicitation as the agent writes it (finish it later with `completeElicitation`). */
export type UrlElicitation = Omit<
  Extract<ElicitationUrlRequest, { mode: 'url' }>,
  'sessionId' | 'requestId' | 'toolCallId'
>;

/** Options of {@link AgentSession.elicit}. */
export interface ElicitOptions {
  /** The client to ask first (normally the one whose prompt started the work). */
  client?: ClientPeer;
  /** The tool call asking, if any. */
  toolCallId?: ToolCallId;
  /**
   * Withdraws the question when it aborts (`$/cancel_request` to the client) and resolves with
   * `{ action: 'cancel' }`. Default: the session's turn signal, so `session/cancel` withdraws it.
   */
  signal?: AbortSignal;
}

/** Whether a client advertised the elicitation mode in its `initialize` capabilities. */
export function canElicit(peer: ClientPeer, mode: string): boolean {
  const modes = peer.capabilities?.elicitation as Record<string, unknown> | null | undefined;
  return modes !== null && modes !== undefined && modes[mode] !== null && modes[mode] !== undefined;
}

const CANCELLED: CreateElicitationResponse = { action: 'cancel' };

/**
 * Asks `peers` that advertised the mode, `options.client` alone first: once the one asked has gone,
 * every other one at once, the first answer winning (see {@link askAttachedClients}). With none
 * left, or once `signal` aborts, the outcome is `{ action: 'cancel' }`.
 */
export async function askClients(
  sessionId: SessionId,
  request: FormElicitation | UrlElicitation,
  peers: () => Iterable<ClientPeer>,
  signal: AbortSignal,
  options: ElicitOptions,
): Promise<CreateElicitationResponse> {
  const params = {
    ...request,
    sessionId,
    ...(options.toolCallId === undefined ? {} : { toolCallId: options.toolCallId }),
  } as CreateElicitationRequest;
  const eligible = (peer: ClientPeer, asked: ReadonlySet<ClientPeer>): boolean =>
    peer.open && !asked.has(peer) && canElicit(peer, request.mode);
  return askAttachedClients<CreateElicitationResponse>(
    {
      candidates: (asked) => {
        const attached = [...peers()];
        const left = attached.filter((peer) => eligible(peer, asked));
        const preferred = options.client;
        return preferred !== undefined && left.includes(preferred)
          ? [preferred, ...left.filter((peer) => peer !== preferred)]
          : left;
      },
      ask: (peer, withdraw) => peer.request('elicitation/create', params, withdraw),
      isAnswer: (value): value is CreateElicitationResponse =>
        typeof (value as { action?: unknown } | null)?.action === 'string',
      invalid: 'The client answered the elicitation without an action.',
      cancelled: CANCELLED,
    },
    signal,
  );
}

/** Tells every open client that takes notifications that a URL elicitation finished (`elicitation/complete`). */
export async function announceCompletion(peers: Iterable<ClientPeer>, elicitationId: string): Promise<void> {
  await Promise.all(
    [...peers]
      .filter((peer) => peer.open && peer.notification !== undefined)
      .map((peer) => peer.notification!('elicitation/complete', { elicitationId }).catch(() => undefined)),
  );
}
