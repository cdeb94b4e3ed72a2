import type { SessionId } from '@acp-kit/schema';
import type { Client } from '@acp-kit/sdk';

/** Initializes, logs in with the first method the agent runs itself (if it lists any), then opens a session. */
export async function startSignedIn(client: Client, cwd: string): Promise<SessionId> {
  const { authMethods } = await client.initialize();
  const method = authMethods?.find((m) => m.type === 'agent');
  if (method !== undefined) await client.login(method.methodId);
  return client.newSession(cwd);
}
