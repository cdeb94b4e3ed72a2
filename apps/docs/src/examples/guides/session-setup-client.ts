import type { SessionId, SessionInfo } from '@acp-kit/schema';
import type { Client } from '@acp-kit/sdk';

/** Opens a session over a repository and a second directory, with one MCP server. */
export async function openProject(client: Client, cwd: string, extra: string): Promise<SessionId> {
  const { sessionId } = await client.createSession({
    cwd,
    additionalDirectories: [extra],
    mcpServers: [
      { type: 'stdio', name: 'files', command: '/usr/local/bin/mcp-files', args: ['--read-only'] },
    ],
  });
  return sessionId;
}

/** Every session rooted at `cwd`, one page at a time: the cursor is the agent's, passed back as is. */
export async function listProject(
  client: Client,
  cwd: string,
): Promise<{ sessions: SessionInfo[]; pages: number }> {
  const sessions: SessionInfo[] = [];
  let pages = 0;
  let cursor: string | null | undefined;
  do {
    const page = await client.listSessions({ cwd, cursor });
    sessions.push(...page.sessions);
    pages += 1;
    cursor = page.nextCursor;
  } while (cursor);
  return { sessions, pages };
}

/** Closes a session, and deletes it with its history when the agent offers session/delete. */
export async function forget(
  client: Client,
  sessionId: SessionId,
  canDelete: boolean,
): Promise<'closed' | 'deleted'> {
  await client.closeSession(sessionId);
  if (!canDelete) return 'closed';
  await client.deleteSession(sessionId);
  return 'deleted';
}
