import type { AgentOptions, AgentSession, ClientPeer, PendingPrompt } from '@acp-kit/sdk';

/** A prompt waiting for its session to be free. */
export interface Queued {
  prompt: PendingPrompt;
  client: ClientPeer;
  /** The ID reserved when the prompt was queued; holding it is not insertion. */
  messageId: string;
}

type ReportError = NonNullable<AgentOptions['onHandlerError']>;

/** The turns of each session, one at a time, in arrival order. */
export interface TurnQueue {
  /** Holds a prompt until its session is free, and starts the session's turns if none runs. */
  push(session: AgentSession, queued: Queued): void;
  /** Forgets the prompts a closed session still holds. */
  forget(sessionId: string): void;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A turn failed (a client answered a permission request with an error, a report could not be
 * sent…): answer what is still unanswered, and end an inserted prompt's turn with stop reason
 * `error` and what failed — never idle without a stop reason.
 */
async function failTurn(
  session: AgentSession,
  { prompt }: Queued,
  error: unknown,
  reportError: ReportError,
): Promise<void> {
  if (prompt.state === 'pending') {
    prompt.reject({ code: -32603, message: 'Internal error' });
    return;
  }
  // Both failures go to stderr: the turn's, and the idle's if it could not be written either
  // (the history is unreachable: with PostgreSQL the replica writes the idle once it is back).
  reportError(error, { handler: 'onPrompt', sessionId: session.id });
  const failure = error as { code?: unknown; message?: unknown };
  await session
    .idle('error', undefined, {
      code: typeof failure?.code === 'number' ? failure.code : -32603,
      message: typeof failure?.message === 'string' ? failure.message : 'Internal error',
    })
    .catch((idleError: unknown) =>
      reportError(
        new Error(`the turn's idle/error could not be written: ${messageOf(idleError)}`, {
          cause: idleError,
        }),
        { handler: 'onPrompt', sessionId: session.id },
      ),
    );
}

/**
 * Runs each session's prompts one turn at a time: a prompt that arrives while a turn runs is held,
 * its response waiting, until the turn ends; a prompt answered meanwhile (cancelled) is skipped.
 */
export function createTurnQueue(
  runTurn: (session: AgentSession, queued: Queued) => Promise<void>,
  reportError: ReportError,
): TurnQueue {
  const queues = new Map<string, Queued[]>();
  const busy = new Set<string>();
  const drain = async (session: AgentSession): Promise<void> => {
    if (busy.has(session.id)) return;
    busy.add(session.id);
    try {
      const queue = queues.get(session.id) ?? [];
      for (let next = queue.shift(); next; next = queue.shift()) {
        if (next.prompt.state !== 'pending') continue;
        try {
          await runTurn(session, next);
        } catch (error) {
          await failTurn(session, next, error, reportError);
        }
      }
    } finally {
      busy.delete(session.id);
    }
  };
  return {
    push(session, queued) {
      const queue = queues.get(session.id) ?? [];
      queue.push(queued);
      queues.set(session.id, queue);
      void drain(session);
    },
    forget(sessionId) {
      queues.delete(sessionId);
    },
  };
}
