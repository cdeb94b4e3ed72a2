import type { ListSessionsRequest, ListSessionsResponse, SessionId, SessionInfo } from '@acp-kit/schema';
import { HistoryStoreError } from '../../history/errors.js';
import type { SessionLog, SessionRecord } from '../../history/session-log.js';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';
import { settingsOf } from './session-settings.js';

/** Sessions per `session/list` page unless the agent says otherwise. */
export const DEFAULT_LIST_PAGE_SIZE = 50;

/** Directory pages read for one filtered `session/list` page before answering with what was found. */
const MAX_SCANNED_PAGES = 16;

/**
 * What `session/list` reports about one directory record; with `reportArchived` (the agent
 * advertises `capabilities.session.archive`, which obliges it to say so of every listed session)
 * also whether it is archived.
 */
export function sessionInfo(record: SessionRecord, reportArchived = false): SessionInfo {
  const { additionalDirectories, archived } = settingsOf(record);
  return {
    sessionId: record.sessionId,
    cwd: record.cwd,
    ...(additionalDirectories && additionalDirectories.length > 0
      ? { additionalDirectories: [...additionalDirectories] }
      : {}),
    ...(record.title === null ? {} : { title: record.title }),
    updatedAt: record.updatedAt,
    ...(reportArchived ? { archived: archived === true } : {}),
  };
}

/** The archive filters `session/list` supports (`SessionArchiveFilter`). */
const ARCHIVE_FILTERS = new Set(['exclude', 'include', 'only']);

/**
 * Whether a record passes `session/list`'s archive filter: with archiving served, `exclude` (the
 * default) leaves archived sessions out, `only` keeps only them, `include` keeps all; a filter this
 * agent does not support is -32602 at `/params/archived`. Without archiving every record passes.
 */
function archiveFilter(request: ListSessionsRequest, served: boolean): (record: SessionRecord) => boolean {
  if (!served) return () => true;
  const filter = request.archived ?? 'exclude';
  if (!ARCHIVE_FILTERS.has(filter)) {
    throw new RpcError(ErrorCodes.InvalidParams, `Unsupported archive filter: ${JSON.stringify(filter)}`, {
      pointer: '/params/archived',
      expected: 'exclude, include or only',
    });
  }
  if (filter === 'include') return () => true;
  const want = filter === 'only';
  return (record) => (settingsOf(record).archived === true) === want;
}

/**
 * The built-in `session/list`: one page of the session log's directory, in creation order, with
 * titles and `updatedAt`. With `cwd`, only sessions rooted there (a page may then hold fewer than
 * `pageSize` sessions and still have a `nextCursor`). The cursor is the directory's own; a cursor
 * the directory does not recognise is -32602 at `/params/cursor`. With `archive` (the agent serves
 * `session/archive`) the request's `archived` filter applies like `cwd`, before paging, and every
 * listed session says whether it is archived.
 */
export async function listSessionPage(
  log: SessionLog,
  request: ListSessionsRequest,
  pageSize = DEFAULT_LIST_PAGE_SIZE,
  archive = false,
): Promise<ListSessionsResponse> {
  const cwd = request.cwd ?? undefined;
  const passes = archiveFilter(request, archive);
  const sessions: SessionInfo[] = [];
  let cursor = request.cursor ?? null;
  // An empty string is no position (the directory would read it as the first page): never issued.
  if (cursor === '') throw invalidCursor(cursor);
  for (let scanned = 0; scanned < MAX_SCANNED_PAGES; scanned++) {
    let page: Awaited<ReturnType<SessionLog['listSessions']>>;
    try {
      // Never ask for more than still fits, so the directory's cursor is exactly where this page ends.
      page = await log.listSessions({ cursor, limit: pageSize - sessions.length });
    } catch (error) {
      if (error instanceof HistoryStoreError && error.code === 'invalid_argument') {
        throw invalidCursor(cursor);
      }
      throw error;
    }
    for (const record of page.sessions) {
      if ((cwd === undefined || record.cwd === cwd) && passes(record))
        sessions.push(sessionInfo(record, archive));
    }
    cursor = page.nextCursor;
    if (cursor === null || sessions.length >= pageSize) break;
  }
  return { sessions, ...(cursor === null ? {} : { nextCursor: cursor }) };
}

/** -32602 at `/params/cursor` for a cursor no `session/list` answer issued. */
function invalidCursor(cursor: string | null): RpcError {
  return new RpcError(ErrorCodes.InvalidParams, `Invalid cursor: ${JSON.stringify(cursor)}`, {
    pointer: '/params/cursor',
    expected: 'a nextCursor from an earlier session/list response',
  });
}

/** -32002 for a session the log does not have (the schema's SessionNotFoundErrorData). */
export function sessionNotFound(sessionId: SessionId): RpcError {
  return new RpcError(ErrorCodes.ResourceNotFound, 'Session not found', { sessionId });
}
