import { connectClient, connectHttp, MemoryCookieStore, type ReconnectingClient } from '@acp-kit/sdk';

/**
 * A client of a remote agent that survives its connection: when a stream drops it reconnects
 * (with the same cookies, so a load balancer's affinity holds), initializes again and resumes
 * every session with replay into the same store.
 */
export function stayConnected(
  url: string,
  token: string,
  log: (line: string) => void = console.log,
): Promise<ReconnectingClient> {
  const cookies = new MemoryCookieStore();
  return connectClient(() => connectHttp(url, { token, cookies }), {
    info: { name: 'my-editor', version: '1.0.0' },
    reconnect: {
      attempts: 8, // per outage; the waits between them double from 100 ms up to 5 s
      onDisconnected: ({ cause }) => log(`connection lost (${cause.message}); reconnecting`),
      onReconnected: ({ attempts, resumed, lost }) =>
        log(`reconnected after ${attempts} attempt(s): ${resumed.length} resumed, ${lost.length} lost`),
    },
  });
}

/** Use `remote.client` for each call, and `remote.closed` to learn that it gave up. */
export async function promptRemote(remote: ReconnectingClient, text: string): Promise<string> {
  const sessionId = await remote.client.newSession('/home/me/project');
  const { stopReason } = await remote.client.promptToEnd(sessionId, [{ type: 'text', text }]);
  return stopReason;
}
