import type {
  CreateElicitationRequest,
  CreateElicitationResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from '@acp-kit/schema';

/** What a callback answering an agent's request gets besides the request. */
export interface AnswerContext {
  /**
   * Aborts when the agent withdraws the request (`$/cancel_request`) or the connection closes:
   * close the prompt then. The agent has already been answered on your behalf.
   */
  signal: AbortSignal;
}

/** Answers `session/request_permission` (see `ClientOptions.onPermission`). */
export type PermissionCallback = (
  request: RequestPermissionRequest,
  context: AnswerContext,
) => RequestPermissionResponse | Promise<RequestPermissionResponse>;

/** Answers `elicitation/create` (see `ClientOptions.onElicitation`). */
export type ElicitationCallback = (
  request: CreateElicitationRequest,
  context: AnswerContext,
) => CreateElicitationResponse | Promise<CreateElicitationResponse>;

/** The answer to a permission request nobody can answer, or that the agent withdrew. */
export const PERMISSION_CANCELLED: RequestPermissionResponse = Object.freeze({
  outcome: Object.freeze({ outcome: 'cancelled' as const }),
});

/** The answer to an elicitation nobody can answer, or that the agent withdrew. */
export const ELICITATION_CANCELLED: CreateElicitationResponse = Object.freeze({ action: 'cancel' as const });

/**
 * Asks the application, but answers `withdrawn` as soon as the agent withdraws the request, so
 * the agent is never left waiting on a prompt the user can no longer answer. A callback that
 * throws fails the request (the agent gets -32603).
 */
export function answerUnlessWithdrawn<Req, Res>(
  ask: (request: Req, context: AnswerContext) => Res | Promise<Res>,
  request: Req,
  signal: AbortSignal,
  withdrawn: Res,
): Promise<Res> {
  if (signal.aborted) return Promise.resolve(withdrawn);
  return new Promise((resolve, reject) => {
    const withdraw = (): void => resolve(withdrawn);
    signal.addEventListener('abort', withdraw, { once: true });
    Promise.resolve()
      .then(() => ask(request, { signal }))
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', withdraw));
  });
}
