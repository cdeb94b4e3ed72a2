import type {
  CreateElicitationResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionId,
} from '@acp-kit/schema';
import type { ClientPeer } from '../connection/client-peer.js';
import type { SessionActivity } from '../turns/turn-tracker.js';
import { AwaitingUser, type BlockingReports } from './awaiting-user.js';
import {
  announceCompletion,
  askClients,
  type ElicitOptions,
  type FormElicitation,
  type UrlElicitation,
} from './elicitation.js';
import { askPermission, type PermissionAudience } from './permission-request.js';

/**
 * The questions one session asks its attached clients (`session/request_permission`,
 * `elicitation/create`), each reported as `requires_action` while it waits during a turn (see
 * {@link AwaitingUser}). Owned by an `AgentSession`, which documents what each one promises; not
 * exported.
 */
export class SessionAsks {
  readonly #sessionId: SessionId;
  readonly #audience: PermissionAudience;
  readonly #turn: { readonly activity: SessionActivity };
  /** The permission requests and elicitations pending, and the `requires_action` they report. */
  readonly #awaiting: AwaitingUser;

  /** `audience` are the session's attached clients; `turn` its activity; `reports` its state reports. */
  constructor(
    sessionId: SessionId,
    audience: PermissionAudience,
    turn: { readonly activity: SessionActivity },
    reports: BlockingReports,
  ) {
    this.#sessionId = sessionId;
    this.#audience = audience;
    this.#turn = turn;
    this.#awaiting = new AwaitingUser(turn, reports);
  }

  /** Implements `AgentSession.elicit`, withdrawn when `signal` aborts. */
  elicit(
    request: FormElicitation | UrlElicitation,
    options: ElicitOptions,
    signal: AbortSignal,
  ): Promise<CreateElicitationResponse> {
    const ask = (): Promise<CreateElicitationResponse> =>
      askClients(this.#sessionId, request, () => this.#audience.peers(), signal, options);
    // Asked while idle, nothing is reported; asked during a turn, the turn waits on the user.
    if (this.#turn.activity === 'idle') return ask();
    return this.#awaiting.during(async () => {
      await this.#awaiting.blocked();
      return ask();
    });
  }

  /** Implements `AgentSession.completeElicitation`. */
  async completeElicitation(elicitationId: string): Promise<void> {
    await announceCompletion(this.#audience.peers(), elicitationId);
  }

  /** Implements `AgentSession.requestPermission`, withdrawn when `signal` (the turn's) aborts. */
  requestPermission(
    params: Omit<RequestPermissionRequest, 'sessionId'>,
    preferred: ClientPeer | undefined,
    signal: AbortSignal,
  ): Promise<RequestPermissionResponse> {
    return this.#awaiting.during(() =>
      askPermission(params, {
        sessionId: this.#sessionId,
        preferred,
        audience: this.#audience,
        signal,
        beforeAsking: () => this.#awaiting.blocked(),
      }),
    );
  }
}
