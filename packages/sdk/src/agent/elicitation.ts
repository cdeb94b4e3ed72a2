import type {
  CreateElicitationRequest,
  CreateElicitationResponse,
  ElicitationFormRequest,
  ElicitationUrlRequest,
  SessionId,
  ToolCallId,
} from '@acp-kit/schema';
import { askOneClientAtATime } from './ask-one-client.js';
import type { ClientPeer } from './client-peer.js';

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
 * Asks one client at a time, preferring `options.client`, among `peers` that advertised the mode:
 * a client that goes away while asked is replaced by the next one. With none left, or once
 * `signal` aborts, the outcome is `{ action: 'cancel' }`.
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
  return askOneClientAtATime<CreateElicitationResponse>(
    {
      next: (asked) => {
        const preferred = options.client;
        if (preferred !== undefined && eligible(preferred, asked) && [...peers()].includes(preferred))
          return preferred;
        return [...peers()].find((peer) => eligible(peer, asked));
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
