import type { BackgroundWork, ContentBlock, MessageId, SessionId } from '@acp-kit/schema';
import type { SessionActivity } from '../agent-session.js';

/**
 * A `session/prompt` another replica received for a session this replica owns, to be run here as
 * if its client had sent it here (see {@link SessionOwnership}).
 */
export interface ForwardedPrompt {
  /** The session. */
  readonly sessionId: SessionId;
  /** The submitted content, as received by the other replica. */
  readonly content: readonly ContentBlock[];
  /** Aborted when the submitting client withdraws the prompt before it is settled. */
  readonly signal: AbortSignal;
  /** A `session/cancel` for the session reached the other replica while the prompt waited. */
  readonly cancelled: boolean;
  /**
   * Called with the message's ID right before the user message is appended, so that whoever takes
   * the session over can tell whether it was inserted (the ID is claimed in the log) or not.
   */
  inserting(messageId: MessageId): Promise<void>;
}

/** The outcome of a forwarded prompt: its receipt, and the log position that covers its report. */
export interface ForwardedReceipt {
  /** The inserted user message's ID (the `session/prompt` result). */
  readonly messageId: MessageId;
  /** A log position at or after the inserted message's report. */
  readonly position: number;
}

/** What the agent offers its {@link SessionOwnership}. */
export interface OwnershipHost {
  /**
   * The sessions loaded here, with the activity their log last reported and the background list
   * its last state update carried (undefined while the session reports none): a session is busy
   * while either its turn runs or its background list is not empty.
   */
  readonly sessions: ReadonlyMap<
    SessionId,
    {
      readonly activity: SessionActivity;
      readonly reportedBackground?: readonly BackgroundWork[] | undefined;
    }
  >;
  /**
   * Runs a prompt forwarded from another replica through the agent's `onPrompt`; resolves with its
   * receipt once inserted, rejects with the error it was rejected with (an `RpcError`: its `code`,
   * `message` and `data` are what the submitting client gets).
   */
  runForwardedPrompt(prompt: ForwardedPrompt): Promise<ForwardedReceipt>;
  /** Applies a `session/cancel` that another replica received (as if its client had sent it here). */
  cancelForwarded(sessionId: SessionId): Promise<void>;
  /**
   * Runs a request about the session's work that another replica received (as if its client had
   * sent it here); rejects with the error to answer it with (an `RpcError`).
   */
  runForwardedRequest(sessionId: SessionId, request: ForwardedRequest): Promise<void>;
}

/**
 * A request about a session's running work, which only the replica running it can carry out: the
 * replica that received it forwards it to the session's owner (see {@link SessionOwnership.forward}).
 */
export type ForwardedRequest =
  | { readonly method: 'tool_call/cancel'; readonly toolCallId: string }
  | { readonly method: 'terminal/cancel'; readonly terminalId: string }
  | { readonly method: 'session/close' };

/** The owner's answer to a {@link ForwardedRequest}: done, or the error to answer the client with. */
export type ForwardedAnswer = { readonly ok: true } | { readonly error: ForwardedError };

/** A JSON-RPC error object, as a forwarded prompt's rejection travels between replicas. */
export interface ForwardedError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** Where a `session/prompt` goes (see {@link SessionOwnership.route}). */
export type PromptRoute =
  | { readonly to: 'here' }
  | { readonly to: 'owner'; readonly receipt: ForwardedReceipt }
  | { readonly to: 'owner'; readonly error: ForwardedError };

/**
 * Session ownership across agent replicas sharing one session log: a session's foreground work
 * (its turns) runs on exactly one replica at a time, its owner. The agent asks the ownership where
 * each `session/prompt` and `session/cancel` goes; a replica that does not own the session has the
 * owner run it and answers its client with the owner's receipt. Without one (the default) every
 * prompt runs where it arrives. `@acp-kit/history-postgres` implements it with a lease in
 * PostgreSQL (`PostgresSessionOwnership`).
 */
export interface SessionOwnership {
  /** Called once by the agent it is given to. */
  bind(host: OwnershipHost): void;
  /** A session was created here (`session/new`): this replica becomes its owner. */
  created(sessionId: SessionId): Promise<void>;
  /**
   * Where a `session/prompt` runs: `here` (this replica owns the session, or has just taken it
   * over), or at the owner, which resolves with the receipt once the owner inserted the prompt, or
   * with the error the prompt was rejected with. `signal` is the request's: the submitting client
   * withdrew it.
   */
  route(sessionId: SessionId, content: readonly ContentBlock[], signal: AbortSignal): Promise<PromptRoute>;
  /** Passes a `session/cancel` on to the owner; true if it was sent elsewhere (not owned here). */
  cancel(sessionId: SessionId): Promise<boolean>;
  /**
   * Has the session's owner carry out `tool_call/cancel`, `terminal/cancel` or `session/close`
   * (its tool calls, terminals and turn live there) and resolves with its answer — or with
   * undefined when this replica owns the session (or has just taken it over): handle it here.
   * Without this method such requests are handled where they arrive.
   */
  forward?(sessionId: SessionId, request: ForwardedRequest): Promise<ForwardedAnswer | undefined>;
  /** Stops (releases what it holds). */
  close(): Promise<void>;
}
