import type { Client } from '@acp-kit/sdk';

/** Titles of every session the agent has for `cwd`, following session/list's cursors. */
export async function sessionTitles(client: Client, cwd: string): Promise<string[]> {
  const titles: string[] = [];
  for await (const session of client.sessions({ cwd })) {
    titles.push(session.title ?? session.sessionId);
  }
  return titles;
}

/** Switches a session to a mode, unless the agent has no such option. */
export async function switchMode(client: Client, sessionId: string, mode: string): Promise<boolean> {
  const option = client.store
    .snapshot(sessionId)
    .configOptions?.find((o) => o.category === 'mode' && o.type === 'select');
  if (option === undefined) return false;
  // Returns every option's new value; the store's snapshot has them too.
  const options = await client.setConfigOption(sessionId, option.configId, mode);
  return options.some((o) => o.configId === option.configId && o.currentValue === mode);
}

/** Gives up on a list that takes too long: the agent gets $/cancel_request. */
export function listWithin(client: Client, ms: number) {
  return client.listSessions({}, { signal: AbortSignal.timeout(ms) });
}
