import { asForwardedError, INTERNAL } from './forwarded-error.js';
import type { LeaseKeeper } from './lease-keeper.js';
import type { OwnershipDatabase } from './ownership-database.js';
import { type ForwardedAnswer, type ForwardedRequest, randomMessageId } from '@acp-kit/sdk/adapter';

type SessionId = string;

/** Longest `request …` notification payload sent (PostgreSQL's limit is 8000 bytes). */
const MAX_REQUEST_PAYLOAD = 7900;

/**
 * Requests for a session owned by another replica (`tool_call/cancel`, `terminal/cancel`,
 * `session/close`): a `NOTIFY` the owner carries out and answers with another. Nothing is stored:
 * the request is sent again every `checkEveryMs` until answered, and the owner answers a repeated
 * request once (it keeps each answer a while).
 */
export class RequestForwarding {
  readonly #db: OwnershipDatabase;
  readonly #keeper: LeaseKeeper;
  readonly #leaseMs: number;
  readonly #checkEveryMs: number;
  /** Forwarded requests this replica waits for an answer to, by request ID. */
  readonly #asked = new Map<string, (answer: ForwardedAnswer) => void>();
  /** Forwarded requests carried out here, by request ID: a repeated request gets the same answer. */
  readonly #answers = new Map<string, Promise<ForwardedAnswer>>();

  constructor(db: OwnershipDatabase, keeper: LeaseKeeper, leaseMs: number, checkEveryMs: number) {
    this.#db = db;
    this.#keeper = keeper;
    this.#leaseMs = leaseMs;
    this.#checkEveryMs = checkEveryMs;
  }

  /**
   * Has the session's owner carry out `request`. Undefined when the session is owned here or is
   * free (then it is taken here: a takeover ends a turn left running). If the owner neither answers
   * nor loses its lease within twice the lease time, the answer is -32603.
   */
  async forward(sessionId: SessionId, request: ForwardedRequest): Promise<ForwardedAnswer | undefined> {
    if (this.#keeper.owns(sessionId) || (await this.#keeper.claim(sessionId))) return undefined;
    const id = randomMessageId().slice(4);
    const payload = `request ${JSON.stringify({ id, sessionId, request })}`;
    if (Buffer.byteLength(payload) > MAX_REQUEST_PAYLOAD) {
      return {
        error: {
          code: -32603,
          message: 'the request is too long to forward to the replica running this session',
        },
      };
    }
    const answered = new Promise<ForwardedAnswer>((resolve) => this.#asked.set(id, resolve));
    const deadline = Date.now() + 2 * this.#leaseMs;
    try {
      for (;;) {
        this.#db.checkOpen();
        await this.#db.notify('forward a request in', payload);
        let timer: NodeJS.Timeout | undefined;
        const waited = new Promise<undefined>((resolve) => {
          timer = setTimeout(() => resolve(undefined), this.#checkEveryMs);
        });
        const answer = await Promise.race([answered, waited]);
        clearTimeout(timer);
        if (answer !== undefined) return answer;
        // Nobody holds the session any more: it is taken here, and handled here.
        if (!this.#keeper.owns(sessionId) && (await this.#keeper.isFree(sessionId))) {
          if (await this.#keeper.claim(sessionId)) return undefined;
        }
        if (Date.now() > deadline) {
          return { error: { code: -32603, message: 'the replica running this session did not answer' } };
        }
      }
    } finally {
      this.#asked.delete(id);
    }
  }

  /** Carries out a request another replica forwarded, if this replica owns the session; answers it. */
  requested(text: string): void {
    let message: { id: string; sessionId: string; request: ForwardedRequest };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return;
    }
    const { id, sessionId, request } = message;
    const host = this.#db.host;
    if (host === undefined || !this.#keeper.owns(sessionId)) return;
    let answer = this.#answers.get(id);
    if (answer === undefined) {
      answer = host.runForwardedRequest(sessionId, request).then(
        (): ForwardedAnswer => ({ ok: true }),
        (error: unknown): ForwardedAnswer => ({ error: asForwardedError(error) }),
      );
      this.#answers.set(id, answer);
      // Kept a while, for a repeated request (its sender missed the answer).
      const forget = (): void => void this.#answers.delete(id);
      answer.then(() => setTimeout(forget, 4 * this.#leaseMs).unref());
    }
    void answer.then((value) =>
      this.#db
        .notify('answer a forwarded request in', `answer ${id} ${JSON.stringify(value)}`)
        .catch(() => undefined),
    );
  }

  /** The owner answered a request (`answer <id> <json>`): hand the answer to its sender, if here. */
  answered(text: string): void {
    const space = text.indexOf(' ');
    const asked = this.#asked.get(text.slice(0, space));
    if (asked === undefined) return;
    try {
      asked(JSON.parse(text.slice(space + 1)) as ForwardedAnswer);
    } catch {
      // Not one of ours: ignored.
    }
  }

  /** Answers every request still waiting with -32603 (the ownership is closing). */
  close(): void {
    for (const asked of this.#asked.values()) asked({ error: INTERNAL });
  }
}
