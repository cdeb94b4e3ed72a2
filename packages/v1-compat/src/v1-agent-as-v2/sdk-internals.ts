import type { ContentBlock, PromptResponse, SessionId, SessionUpdate } from '@acp-kit/schema';
import {
  AgentSession,
  type ClientPeer,
  type HistoryStore,
  PendingPrompt,
  type SessionLog,
} from '@acp-kit/sdk';

/**
 * The SDK members the v1 → v2 bridge still builds on. The SDK marks them internal, so
 * its published declarations (built with `stripInternal`) do not carry them; this file is the one
 * place that names them, with the signatures the SDK source gives them, until the SDK offers a
 * supported adapter seam (issue #17, item 3). A test checks that each still exists.
 */
export interface AgentSessionInternals {
  /** Attaches a client at the session's position; with `hold`, entries wait until {@link release}. */
  attach(peer: ClientPeer, hold?: boolean): void;
  /** Sends the entries held for a client, then lets entries flow to it. */
  release(peer: ClientPeer): Promise<void>;
  /** Detaches a client (its connection closed). */
  detach(peer: ClientPeer): void;
  /** Sends one update to one client only, outside the log. */
  sendTo(peer: ClientPeer, update: SessionUpdate): Promise<void>;
  /** Sends one client the session's current activity as a `state_update` (after a resume). */
  sendStateTo(peer: ClientPeer): Promise<void>;
  /** Closes the live session: aborts its work and detaches every client (the log stays). */
  close(): void;
  /** `session/cancel`: aborts the session's signal for the pending and running work. */
  cancel(): void;
}

/** The internal members names, for the test that checks they exist. */
export const AGENT_SESSION_INTERNALS = [
  'attach',
  'release',
  'detach',
  'sendTo',
  'sendStateTo',
  'close',
  'cancel',
] as const;

/** The internal view of a session. */
export function sessionInternals(session: AgentSession): AgentSessionInternals {
  return session as unknown as AgentSessionInternals;
}

type AgentSessionConstructor = new (
  id: SessionId,
  cwd: string,
  log: SessionLog | HistoryStore,
) => AgentSession;

/** Creates a session outside an `Agent` (the bridge chooses the session IDs: the v1 agent's). */
export function newAgentSession(id: SessionId, cwd: string, log: SessionLog | HistoryStore): AgentSession {
  return new (AgentSession as unknown as AgentSessionConstructor)(id, cwd, log);
}

type PendingPromptConstructor = new (
  sessionId: SessionId,
  content: readonly ContentBlock[],
  signal: AbortSignal,
  inserter: AgentSession,
) => PendingPrompt & { readonly response: Promise<PromptResponse> };

/** Creates the pending prompt of a `session/prompt` and returns it with the response it settles. */
export function newPendingPrompt(
  sessionId: SessionId,
  content: readonly ContentBlock[],
  signal: AbortSignal,
  session: AgentSession,
): PendingPrompt & { readonly response: Promise<PromptResponse> } {
  return new (PendingPrompt as unknown as PendingPromptConstructor)(sessionId, content, signal, session);
}
