import type { UnstableClient } from '@acp-kit/sdk';

/**
 * Tries another direction without losing the first one: forks the session (its history comes
 * along, replayed into the store), names the fork, then archives the original so the session
 * list shows only the branch. Uses unstable methods: the client must be created with
 * `unstable: true` (which types it `UnstableClient`; a stable client does not compile here), and the agent must advertise `capabilities.session.fork`, `.title` and `.archive`.
 */
export async function branchAndShelve(client: UnstableClient, sessionId: string, cwd: string, title: string) {
  const fork = await client.forkSession({ sessionId, cwd }, { replay: true });
  const stored = await client.setTitle(fork.sessionId, title);
  // Closes the original if work runs there, and hides it from the default session/list.
  await client.archiveSession(sessionId);
  const status = await client.sessionStatus(sessionId); // 'saved': no longer in memory
  const visible = (await client.listSessions()).sessions.map((s) => s.sessionId);
  const shelved = (await client.listSessions({ archived: 'only' })).sessions.map((s) => s.sessionId);
  return { branch: fork.sessionId, title: stored, original: status.status, visible, shelved };
}
