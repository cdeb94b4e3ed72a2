/**
 * Walking every page of an agent's `session/list`, following `nextCursor`, with the guard that
 * stops on a cursor the agent gives twice instead of looping.
 */
import type { ListSessionsRequest, ListSessionsResponse, SessionInfo } from '@acp-kit/schema';

/**
 * Every session `listPage` lists, page after page, until a page gives no `nextCursor`. Throws if a
 * cursor comes back that was already given.
 */
export async function* allSessionPages(
  listPage: (request: ListSessionsRequest) => Promise<ListSessionsResponse>,
  request: Omit<ListSessionsRequest, 'cursor'>,
): AsyncGenerator<SessionInfo, void, undefined> {
  const seen = new Set<string>();
  let cursor: string | null | undefined;
  do {
    const page = await listPage({ ...request, ...(cursor ? { cursor } : {}) });
    yield* page.sessions;
    cursor = page.nextCursor;
    if (cursor) {
      if (seen.has(cursor)) throw new Error(`session/list returned the cursor "${cursor}" twice`);
      seen.add(cursor);
    }
  } while (cursor);
}
