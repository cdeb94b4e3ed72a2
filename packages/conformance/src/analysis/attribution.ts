import { type Analysis, liveUpdates, type PromptRecord, type UpdateRecord } from './model.js';

/** Why a user message with an unreturned ID was attributed to a prompt. */
export type ClaimKind =
  /** The prompt was accepted without a usable messageId, so its message cannot carry it. */
  | 'accepted-without-id'
  /** The prompt was accepted with an ID that never showed up: this message stands in for it. */
  | 'accepted-under-other-id'
  /** The prompt was rejected, yet a user message appeared for it. */
  | 'rejected'
  /** The prompt was never answered. */
  | 'unanswered';

/** A live user message whose ID no prompt response returned, and the prompt it is attributed to. */
export interface Claim {
  prompt: PromptRecord;
  kind: ClaimKind;
  /** The first update under the stray ID. */
  update: UpdateRecord;
}

/** How live user messages relate to prompts, per the attribution rules below. */
export interface Attribution {
  /** Claims by prompt. */
  byPrompt: Map<PromptRecord, Claim>;
  /** All claims, in message order. */
  claims: Claim[];
  /** First live user-message update per (session, messageId). */
  firstReport: Map<string, UpdateRecord>;
  /** Every live user-message update per (session, messageId), in order. */
  reports: Map<string, UpdateRecord[]>;
}

/** Key for per-session ID maps. */
export function sessionKey(sessionId: unknown, messageId: string): string {
  return `${JSON.stringify(sessionId)}\u0000${messageId}`;
}

/**
 * Correlates live user messages with prompts. A message under a returned ID belongs to that prompt.
 * A message under any other ID (a "stray") is attributed to an earlier prompt of its session, in
 * this order of preference: the oldest accepted prompt without a usable ID, the oldest accepted
 * prompt whose ID never appeared, the oldest unanswered prompt, the latest rejected prompt. A stray
 * with no candidate is an agent-initiated message (imports, background work) and is left alone.
 */
export function attributeUserMessages(analysis: Analysis): Attribution {
  const firstReport = new Map<string, UpdateRecord>();
  const reports = new Map<string, UpdateRecord[]>();
  const strays: UpdateRecord[] = [];
  const sessions = new Set(analysis.prompts.map((prompt) => prompt.sessionId));
  const returned = new Set(
    analysis.prompts.flatMap((prompt) =>
      prompt.messageId ? [sessionKey(prompt.sessionId, prompt.messageId)] : [],
    ),
  );
  for (const update of analysis.updates) {
    if (update.resume || update.message?.family !== 'user_message' || !update.messageId) continue;
    const key = sessionKey(update.sessionId, update.messageId);
    reports.set(key, [...(reports.get(key) ?? []), update]);
    if (firstReport.has(key)) continue;
    firstReport.set(key, update);
    if (!returned.has(key) && sessions.has(update.sessionId)) strays.push(update);
  }

  const byPrompt = new Map<PromptRecord, Claim>();
  const claims: Claim[] = [];
  for (const update of strays) {
    const earlier = analysis.prompts.filter(
      (prompt) =>
        prompt.sessionId === update.sessionId && prompt.request.index < update.index && !byPrompt.has(prompt),
    );
    const pick = (kind: ClaimKind, prompt: PromptRecord | undefined): boolean => {
      if (!prompt) return false;
      const claim = { prompt, kind, update };
      byPrompt.set(prompt, claim);
      claims.push(claim);
      return true;
    };
    void (
      pick(
        'accepted-without-id',
        earlier.find((prompt) => prompt.status === 'accepted' && !prompt.messageId),
      ) ||
      pick(
        'accepted-under-other-id',
        earlier.find(
          (prompt) =>
            prompt.status === 'accepted' &&
            prompt.messageId !== undefined &&
            !firstReport.has(sessionKey(prompt.sessionId, prompt.messageId)),
        ),
      ) ||
      pick(
        'unanswered',
        earlier.find((prompt) => prompt.status === 'unanswered'),
      ) ||
      pick(
        'rejected',
        earlier.findLast((prompt) => prompt.status === 'rejected'),
      )
    );
  }
  return { byPrompt, claims, firstReport, reports };
}

/**
 * Where a prompt's user message was first reported: under its own ID, or else the stray attributed
 * to it. When one ID was (wrongly) returned for several prompts, the k-th of them is placed at the
 * k-th time a message under that ID started (its first update, or a later whole-message update).
 */
export function reportOf(
  analysis: Analysis,
  attribution: Attribution,
  prompt: PromptRecord,
): UpdateRecord | undefined {
  if (prompt.messageId) {
    const key = sessionKey(prompt.sessionId, prompt.messageId);
    const reports = attribution.reports.get(key) ?? [];
    const starts = reports.filter((update, index) => index === 0 || !update.message!.chunk);
    const sharing = analysis.prompts.filter(
      (other) => other.messageId !== undefined && sessionKey(other.sessionId, other.messageId) === key,
    );
    const start = starts[sharing.indexOf(prompt)];
    if (start && start.index > prompt.request.index) return start;
    const own = reports.find((update) => update.index > prompt.request.index);
    if (own) return own;
  }
  const claim = attribution.byPrompt.get(prompt);
  return claim && claim.kind !== 'rejected' ? claim.update : undefined;
}

/** Live user-message updates of a session. */
export function liveUserMessages(analysis: Analysis, sessionId: unknown): UpdateRecord[] {
  return liveUpdates(analysis, sessionId).filter((update) => update.message?.family === 'user_message');
}
