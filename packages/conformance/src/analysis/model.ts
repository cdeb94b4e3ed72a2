import type { TranscriptEntry } from '../transcript/parse.js';
import { asRecord, type Envelope, envelopeOf, isMessageId } from './envelope.js';
import { type MessageUpdateKind, messageUpdateKind } from './messages.js';

/** A request seen in the transcript, with its response when one came. */
export interface RequestRecord {
  index: number;
  from: 'client' | 'agent';
  id: unknown;
  method: string;
  params: unknown;
  response?: { index: number; ok: boolean; result?: unknown; error?: unknown };
}

/** A `session/prompt` from the client and what became of it. */
export interface PromptRecord {
  request: RequestRecord;
  sessionId: unknown;
  /** accepted: success response; rejected: error response; unanswered: no response in the transcript. */
  status: 'accepted' | 'rejected' | 'unanswered';
  /** The returned messageId when it is a non-empty string. */
  messageId?: string;
}

/** A `session/resume` from the client; updates between request and response belong to it. */
export interface ResumeRecord {
  request: RequestRecord;
  sessionId: unknown;
  /** Whether it asked for replay (a non-null `replayFrom`). */
  replay: boolean;
  /** Index of the response, or Infinity while none came. */
  end: number;
}

/** A `session/update` from the agent. */
export interface UpdateRecord {
  index: number;
  sessionId: unknown;
  update: Record<string, unknown>;
  sessionUpdate: unknown;
  /** Set for user/agent/thought message updates. */
  message?: MessageUpdateKind;
  messageId?: string;
  /** The resume whose request/response window holds this update, if any. */
  resume?: ResumeRecord;
}

/** A `session/cancel` from the client. */
export interface CancelRecord {
  index: number;
  sessionId: unknown;
}

/** A structured view of one connection's transcript, shared by all checks. */
export interface Analysis {
  entries: readonly TranscriptEntry[];
  envelopes: readonly Envelope[];
  requests: RequestRecord[];
  prompts: PromptRecord[];
  resumes: ResumeRecord[];
  updates: UpdateRecord[];
  cancels: CancelRecord[];
  /** Sessions created by session/new on this connection, with the index of the response. */
  created: Map<string, number>;
  /** Whether the transcript starts with the connection (its first client message is initialize). */
  fromStart: boolean;
}

/** Builds the {@link Analysis} of a transcript. Never throws on malformed messages. */
export function analyze(entries: readonly TranscriptEntry[]): Analysis {
  const envelopes = entries.map((entry) => envelopeOf(entry.msg));
  const requests: RequestRecord[] = [];
  const open = new Map<string, RequestRecord>();
  const prompts: PromptRecord[] = [];
  const resumes: ResumeRecord[] = [];
  const updates: UpdateRecord[] = [];
  const cancels: CancelRecord[] = [];
  const created = new Map<string, number>();
  const promptByRequest = new Map<RequestRecord, PromptRecord>();
  const resumeByRequest = new Map<RequestRecord, ResumeRecord>();

  entries.forEach((entry, index) => {
    const envelope = envelopes[index]!;
    const from = entry.dir === 'client->agent' ? 'client' : 'agent';
    if (envelope.kind === 'request') {
      const request: RequestRecord = {
        index,
        from,
        id: envelope.id,
        method: envelope.method!,
        params: envelope.params,
      };
      requests.push(request);
      open.set(`${from}:${JSON.stringify(envelope.id)}`, request);
      if (from === 'client' && request.method === 'session/prompt') {
        const prompt: PromptRecord = {
          request,
          sessionId: asRecord(request.params)?.sessionId,
          status: 'unanswered',
        };
        prompts.push(prompt);
        promptByRequest.set(request, prompt);
      }
      if (from === 'client' && request.method === 'session/resume') {
        const params = asRecord(request.params);
        const replayFrom = params?.replayFrom;
        const resume: ResumeRecord = {
          request,
          sessionId: params?.sessionId,
          replay: replayFrom !== undefined && replayFrom !== null,
          end: Number.POSITIVE_INFINITY,
        };
        resumes.push(resume);
        resumeByRequest.set(request, resume);
      }
      return;
    }
    if (envelope.kind === 'success' || envelope.kind === 'error') {
      const requester = from === 'client' ? 'agent' : 'client';
      const key = `${requester}:${JSON.stringify(envelope.id)}`;
      const request = open.get(key);
      if (!request) return;
      open.delete(key);
      const ok = envelope.kind === 'success';
      request.response = ok ? { index, ok, result: envelope.result } : { index, ok, error: envelope.error };
      const prompt = promptByRequest.get(request);
      if (prompt) {
        prompt.status = ok ? 'accepted' : 'rejected';
        const messageId = asRecord(envelope.result)?.messageId;
        if (ok && isMessageId(messageId)) prompt.messageId = messageId;
      }
      const resume = resumeByRequest.get(request);
      if (resume) resume.end = index;
      if (ok && request.method === 'session/new') {
        const sessionId = asRecord(envelope.result)?.sessionId;
        if (typeof sessionId === 'string') created.set(sessionId, index);
      }
      return;
    }
    if (envelope.kind !== 'notification') return;
    const params = asRecord(envelope.params);
    if (from === 'agent' && envelope.method === 'session/update') {
      const update = asRecord(params?.update) ?? {};
      const record: UpdateRecord = {
        index,
        sessionId: params?.sessionId,
        update,
        sessionUpdate: update.sessionUpdate,
      };
      const message = messageUpdateKind(update.sessionUpdate);
      if (message) record.message = message;
      if (isMessageId(update.messageId)) record.messageId = update.messageId;
      updates.push(record);
    }
    if (from === 'client' && envelope.method === 'session/cancel') {
      cancels.push({ index, sessionId: params?.sessionId });
    }
  });

  // Resume windows are known only once responses are in, so updates are placed afterwards.
  for (const update of updates) {
    const resume = resumes.find(
      (candidate) =>
        candidate.sessionId === update.sessionId &&
        candidate.request.index < update.index &&
        update.index < candidate.end,
    );
    if (resume) update.resume = resume;
  }

  const firstClient = entries.findIndex((entry) => entry.dir === 'client->agent');
  const fromStart = firstClient >= 0 && envelopes[firstClient]?.method === 'initialize';
  return { entries, envelopes, requests, prompts, resumes, updates, cancels, created, fromStart };
}

/** Updates of one session outside every resume window: the live traffic. */
export function liveUpdates(analysis: Analysis, sessionId: unknown): UpdateRecord[] {
  return analysis.updates.filter((update) => update.sessionId === sessionId && !update.resume);
}

/** The state of a `state_update`, or undefined for other updates. */
export function stateOf(update: UpdateRecord): string | undefined {
  return update.sessionUpdate === 'state_update' && typeof update.update.state === 'string'
    ? update.update.state
    : undefined;
}

/** Whether an update is an idle that ends work (carries a non-null stopReason). */
export function endsWork(update: UpdateRecord): boolean {
  return (
    stateOf(update) === 'idle' && update.update.stopReason !== undefined && update.update.stopReason !== null
  );
}

/** The first live idle-with-stopReason of a session strictly after `index`. */
export function nextWorkEnd(analysis: Analysis, sessionId: unknown, index: number): UpdateRecord | undefined {
  return liveUpdates(analysis, sessionId).find((update) => update.index > index && endsWork(update));
}
