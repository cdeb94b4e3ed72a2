import {
  type Finding,
  type LintResult,
  lintTranscript,
  parseTranscript,
  type TranscriptEntry,
} from '@acp-kit/conformance/lint';

/** What a message is on the wire. */
export type WireKind = 'request' | 'notification' | 'response' | 'error' | 'unknown';

/** A link from one message to a related one (a prompt to its receipt and its user message). */
export interface MessageLink {
  readonly label: string;
  readonly line: number;
}

/** One message of the transcript, classified and annotated for display. */
export interface MessageRow {
  readonly line: number;
  readonly from: 'client' | 'agent';
  readonly t?: number;
  readonly kind: WireKind;
  /** `session/prompt`, `result`, `error -32002`, … */
  readonly label: string;
  /** The short second line: request id, update kind, messageId. */
  readonly detail: string;
  readonly json: string;
  /** Lint findings located at this line. */
  readonly findings: readonly Finding[];
  readonly links: readonly MessageLink[];
}

/** A prompt request with what the transcript shows about it. */
export interface PromptTrace {
  readonly requestLine: number;
  readonly sessionId: string;
  readonly content: readonly unknown[];
  readonly responseLine?: number;
  /** `ok` with a string messageId, `rejected` for an error, `no-id` for a success without a usable ID. */
  readonly outcome: 'pending' | 'ok' | 'rejected' | 'no-id';
  readonly messageId?: string;
  readonly error?: unknown;
  /** First `user_message` or `user_message_chunk` update carrying the returned messageId. */
  readonly userMessageLine?: number;
}

/** Everything the playground shows about one transcript. */
export interface TranscriptAnalysis {
  readonly lint: LintResult;
  readonly entries: readonly TranscriptEntry[];
  readonly rows: readonly MessageRow[];
  readonly prompts: readonly PromptTrace[];
  /** Findings not tied to one message line (whole-transcript rules). */
  readonly unlocated: readonly Finding[];
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function show(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : (JSON.stringify(value) ?? 'undefined');
}

function classify(msg: Record<string, unknown> | undefined): WireKind {
  if (msg === undefined) return 'unknown';
  if (typeof msg.method === 'string') return 'id' in msg ? 'request' : 'notification';
  if ('error' in msg) return 'error';
  if ('result' in msg) return 'response';
  return 'unknown';
}

const USER_MESSAGE_KINDS = new Set(['user_message', 'user_message_chunk']);

/** The `update` of a session/update notification, if the message is one. */
function updateOf(msg: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  return msg?.method === 'session/update' ? record(record(msg.params)?.update) : undefined;
}

/**
 * Lints a transcript with @acp-kit/conformance (schema validation of every message with the
 * generated validators, and the prompt-lifecycle rules) and lays it out for display: rows with
 * their findings, and every prompt traced to its receipt and its user message by `messageId`.
 */
export function analyzeTranscript(text: string): TranscriptAnalysis {
  const lint = lintTranscript(text);
  const { entries } = parseTranscript(text);
  const byLine = new Map<number, Finding[]>();
  const unlocated: Finding[] = [];
  for (const finding of lint.findings) {
    if (finding.line === undefined) unlocated.push(finding);
    else byLine.set(finding.line, [...(byLine.get(finding.line) ?? []), finding]);
  }

  // Requests are keyed by sender and id: both sides number their own requests.
  const openRequests = new Map<string, { line: number; method: string; params: unknown }>();
  const prompts = new Map<number, PromptTrace>();
  const responseFor = new Map<number, number>();
  const firstUserMessage = new Map<string, number>();
  for (const entry of entries) {
    const msg = record(entry.msg);
    const from = entry.dir === 'client->agent' ? 'client' : 'agent';
    const kind = classify(msg);
    if (kind === 'request' && msg !== undefined) {
      openRequests.set(`${from}:${show(msg.id)}`, {
        line: entry.line,
        method: String(msg.method),
        params: msg.params,
      });
      if (msg.method === 'session/prompt' && from === 'client') {
        const params = record(msg.params);
        prompts.set(entry.line, {
          requestLine: entry.line,
          sessionId: typeof params?.sessionId === 'string' ? params.sessionId : '',
          content: Array.isArray(params?.prompt) ? params.prompt : [],
          outcome: 'pending',
        });
      }
    } else if ((kind === 'response' || kind === 'error') && msg !== undefined) {
      const requester = from === 'agent' ? 'client' : 'agent';
      const key = `${requester}:${show(msg.id)}`;
      const request = openRequests.get(key);
      if (request === undefined) continue;
      openRequests.delete(key);
      responseFor.set(request.line, entry.line);
      const prompt = prompts.get(request.line);
      if (prompt === undefined) continue;
      const messageId = record(msg.result)?.messageId;
      prompts.set(request.line, {
        ...prompt,
        responseLine: entry.line,
        ...(kind === 'error'
          ? { outcome: 'rejected', error: msg.error }
          : typeof messageId === 'string' && messageId !== ''
            ? { outcome: 'ok', messageId }
            : { outcome: 'no-id' }),
      });
    } else if (kind === 'notification') {
      const update = updateOf(msg);
      const messageId = update?.messageId;
      if (typeof update?.sessionUpdate === 'string' && USER_MESSAGE_KINDS.has(update.sessionUpdate)) {
        if (typeof messageId === 'string' && !firstUserMessage.has(messageId))
          firstUserMessage.set(messageId, entry.line);
      }
    }
  }
  const traced = [...prompts.values()].map((p) => {
    const userMessageLine = p.messageId === undefined ? undefined : firstUserMessage.get(p.messageId);
    return userMessageLine === undefined ? p : { ...p, userMessageLine };
  });
  const promptByUserMessage = new Map<number, PromptTrace>();
  const promptByResponse = new Map<number, PromptTrace>();
  for (const p of traced) {
    if (p.userMessageLine !== undefined && !promptByUserMessage.has(p.userMessageLine)) {
      promptByUserMessage.set(p.userMessageLine, p);
    }
    if (p.responseLine !== undefined) promptByResponse.set(p.responseLine, p);
  }
  const promptByRequest = new Map(traced.map((p) => [p.requestLine, p]));

  const rows = entries.map((entry): MessageRow => {
    const msg = record(entry.msg);
    const from = entry.dir === 'client->agent' ? 'client' : 'agent';
    const kind = classify(msg);
    const update = updateOf(msg);
    const links: MessageLink[] = [];
    let label = 'not a JSON-RPC message';
    let detail = '';
    if (kind === 'request' || kind === 'notification') {
      label = String(msg?.method);
      detail = kind === 'request' ? `id: ${show(msg?.id)}` : '';
      if (update !== undefined) {
        detail = [update.sessionUpdate, update.messageId ?? update.state]
          .filter((v) => v !== undefined)
          .join(' · ');
      }
    } else if (kind === 'response') {
      label = 'result';
      const messageId = record(msg?.result)?.messageId;
      detail = [
        `id: ${show(msg?.id)}`,
        ...(messageId === undefined ? [] : [`messageId: ${show(messageId)}`]),
      ].join(' · ');
    } else if (kind === 'error') {
      label = `error ${show(record(msg?.error)?.code)}`;
      detail = `id: ${show(msg?.id)}`;
    }
    const prompt = promptByRequest.get(entry.line);
    if (prompt !== undefined) {
      if (prompt.responseLine !== undefined) links.push({ label: 'response', line: prompt.responseLine });
      if (prompt.userMessageLine !== undefined) {
        links.push({ label: `user message ${prompt.messageId ?? ''}`.trim(), line: prompt.userMessageLine });
      }
    } else if (kind === 'request') {
      const response = responseFor.get(entry.line);
      if (response !== undefined) links.push({ label: 'response', line: response });
    }
    const answered = promptByResponse.get(entry.line);
    if (answered !== undefined) links.push({ label: 'prompt', line: answered.requestLine });
    const submitted = promptByUserMessage.get(entry.line);
    if (submitted !== undefined) links.push({ label: 'submitted by prompt', line: submitted.requestLine });
    return {
      line: entry.line,
      from,
      ...(entry.t === undefined ? {} : { t: entry.t }),
      kind,
      label,
      detail,
      json: JSON.stringify(entry.msg, null, 2),
      findings: byLine.get(entry.line) ?? [],
      links,
    };
  });
  // Format problems sit on lines that are not messages; show them without a row.
  const rowLines = new Set(rows.map((r) => r.line));
  for (const [line, findings] of byLine) if (!rowLines.has(line)) unlocated.push(...findings);
  return { lint, entries, rows, prompts: traced, unlocated };
}
