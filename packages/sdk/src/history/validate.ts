import type { ContentBlock } from '@acp-kit/schema';
import { HistoryStoreError } from './errors.js';
import {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  type MessageRef,
  type MessageTarget,
  type NewHistorySession,
  type NewRetainedMessage,
  type ReplayVia,
} from './history-store.js';
import { randomId } from './message-ids.js';
import { allStorable, findUnstorableText, STORABLE_TEXT } from './storable-text.js';
import type { NewLogEntry, NewSessionRecord, SessionConfig, SessionPatch } from './session-log.js';

// Argument checks shared by every HistoryStore implementation, so that each one rejects the same
// inputs with the same code and pointer (the contract tests rely on it).

const KINDS: ReadonlySet<string> = new Set(['user_message', 'agent_message', 'agent_thought']);
const VIAS: ReadonlySet<string> = new Set(['full', 'chunks']);

function invalid(pointer: string, expected: string): never {
  throw new HistoryStoreError('invalid_argument', `${pointer || '/'}: expected ${expected}`, { pointer });
}

/** Throws `invalid_argument` at the first string in `value` no store can keep unchanged (see {@link findUnstorableText}). */
export function checkStorable(value: unknown, pointer: string): void {
  const at = findUnstorableText(value, pointer);
  if (at !== undefined) invalid(at, STORABLE_TEXT);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Throws `invalid_argument` unless `value` is a non-empty string. */
export function checkId(value: unknown, pointer: string): asserts value is string {
  if (typeof value !== 'string' || value.length === 0) invalid(pointer, 'a non-empty string');
}

/** Throws `invalid_argument` unless `value` is a content block (an object with a string `type`). */
export function checkBlock(value: unknown, pointer: string): asserts value is ContentBlock {
  if (!isRecord(value) || typeof value.type !== 'string')
    invalid(pointer, 'a content block with a string "type"');
  checkStorable(value, pointer);
}

/** Throws `invalid_argument` unless `value` is an array of content blocks. */
export function checkContent(value: unknown, pointer: string): asserts value is readonly ContentBlock[] {
  if (!Array.isArray(value)) invalid(pointer, 'an array of content blocks');
  for (const [i, block] of value.entries()) checkBlock(block, `${pointer}/${i}`);
}

/** Validates `createSession` input and returns it with `sessionId` and `createdAt` filled in. */
export function checkNewSession(session: NewHistorySession): Required<NewHistorySession> {
  if (!isRecord(session)) invalid('', 'a session object');
  const sessionId = session.sessionId ?? randomId('sess_');
  checkId(sessionId, '/sessionId');
  checkId(session.cwd, '/cwd');
  checkStorable(session.cwd, '/cwd');
  const createdAt = session.createdAt ?? new Date().toISOString();
  if (typeof createdAt !== 'string' || Number.isNaN(Date.parse(createdAt))) {
    invalid('/createdAt', 'an ISO 8601 date');
  }
  return { sessionId, cwd: session.cwd, createdAt };
}

/** Validates a message target: a non-empty ID, or a `{kind, messageId}` reference. */
export function checkTarget(target: MessageTarget, pointer = ''): void {
  if (typeof target === 'string') checkId(target, pointer);
  else checkRef(target, pointer);
}

/** Validates a message reference. */
export function checkRef(ref: MessageRef, pointer = ''): void {
  if (!isRecord(ref)) invalid(pointer, 'a {kind, messageId} object');
  if (!KINDS.has(ref.kind as string))
    invalid(`${pointer}/kind`, 'user_message, agent_message or agent_thought');
  checkId(ref.messageId, `${pointer}/messageId`);
}

/** Validates a replay preference. */
export function checkVia(via: unknown, pointer: string): asserts via is ReplayVia {
  if (!VIAS.has(via as string)) invalid(pointer, '"full" or "chunks"');
}

/** Validates `appendMessage` input. */
export function checkNewMessage(message: NewRetainedMessage): void {
  checkRef(message);
  checkContent(message.content, '/content');
  if (message.via !== undefined) checkVia(message.via, '/via');
  if (message.meta !== undefined && message.meta !== null && !isRecord(message.meta)) {
    invalid('/meta', 'an object or null');
  }
}

/** The replay preference of a new message: as given, else `chunks` for empty content, else `full`. */
export function defaultVia(message: NewRetainedMessage): ReplayVia {
  return message.via ?? (message.content.length === 0 ? 'chunks' : 'full');
}

/** Throws `invalid_argument` for a bare ID retained under more than one kind. */
export function ambiguousTarget(messageId: string, sessionId: string): never {
  throw new HistoryStoreError(
    'invalid_argument',
    `message "${messageId}" is retained under more than one kind; pass {kind, messageId}`,
    { sessionId, messageId, pointer: '' },
  );
}

/** Clamps a requested page size to `1..MAX_PAGE_SIZE` (default {@link DEFAULT_PAGE_SIZE}). */
export function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1) invalid('/limit', 'a positive integer');
  return Math.min(limit, MAX_PAGE_SIZE);
}

/** Validates an `afterSeq` cursor (0 when omitted). */
export function afterSeq(value: number | undefined): number {
  if (value === undefined) return 0;
  if (!Number.isInteger(value) || value < 0) invalid('/afterSeq', 'a non-negative integer');
  return value;
}

/** Validates `append` input: a non-empty array of entries, each with an update and optional claim. */
export function checkEntries(entries: unknown): asserts entries is readonly NewLogEntry[] {
  if (!Array.isArray(entries) || entries.length === 0) invalid('/entries', 'a non-empty array of entries');
  // Pointers are built only for a refusal: a log appends a streamed chunk at a time.
  for (let i = 0; i < entries.length; i++) {
    const entry: unknown = entries[i];
    if (!isRecord(entry)) invalid(`/entries/${i}`, 'an entry object');
    const update = entry.update;
    if (!isRecord(update) || typeof update.sessionUpdate !== 'string' || update.sessionUpdate.length === 0) {
      invalid(`/entries/${i}/update`, 'a session update with a string "sessionUpdate"');
    }
    if (entry.retain !== undefined && typeof entry.retain !== 'boolean')
      invalid(`/entries/${i}/retain`, 'a boolean');
    if (entry.claim !== undefined) checkRef(entry.claim as MessageRef, `/entries/${i}/claim`);
    if (!allStorable(update)) checkStorable(update, `/entries/${i}/update`);
  }
}

/** Validates `createSession` input of a session log and fills in its defaults. */
export function checkNewSessionRecord(session: NewSessionRecord): {
  sessionId: string;
  cwd: string;
  createdAt: string;
  title: string | null;
  config: SessionConfig | null;
} {
  const base = checkNewSession(session);
  const title = session.title ?? null;
  if (title !== null && typeof title !== 'string') invalid('/title', 'a string or null');
  const config = session.config ?? null;
  if (config !== null && !isRecord(config)) invalid('/config', 'an object or null');
  checkStorable(title, '/title');
  checkStorable(config, '/config');
  return { ...base, title, config };
}

/** Validates a session patch. */
export function checkPatch(patch: SessionPatch): void {
  if (!isRecord(patch)) invalid('', 'a patch object');
  if (patch.cwd !== undefined) checkId(patch.cwd, '/cwd');
  if (patch.title !== undefined && patch.title !== null && typeof patch.title !== 'string') {
    invalid('/title', 'a string or null');
  }
  if (patch.config !== undefined && patch.config !== null && !isRecord(patch.config)) {
    invalid('/config', 'an object or null');
  }
  checkStorable(patch.cwd, '/cwd');
  checkStorable(patch.title, '/title');
  checkStorable(patch.config, '/config');
}

/** Throws `duplicate_message` for a message claimed twice. */
export function duplicateClaim(sessionId: string, ref: MessageRef): never {
  throw new HistoryStoreError('duplicate_message', `${ref.kind} "${ref.messageId}" is already claimed`, {
    sessionId,
    messageId: ref.messageId,
  });
}

/** Now as ISO 8601, never earlier than `previous` (a clock step back must not reorder `updatedAt`). */
export function monotonicNow(previous: string): string {
  // Formatted once per millisecond: a log appends a streamed chunk at a time, thousands a second.
  const ms = Date.now();
  if (ms !== nowMs) {
    nowMs = ms;
    nowIso = new Date(ms).toISOString();
  }
  return nowIso > previous ? nowIso : previous;
}
let nowMs = Number.NaN;
let nowIso = '';
