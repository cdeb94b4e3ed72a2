import type { BackgroundWork, SessionId, SessionNotification } from '@acp-kit/schema';
import type { Client, ClientConnection } from '@acp-kit/sdk';

/**
 * The latest `background` list of each session, from the state updates a connection receives. The
 * list is a complete snapshot: the latest one replaces the one before; `[]` means nothing runs, and
 * an omitted or `null` list means the agent does not report background work (not that none runs).
 */
export function trackBackground(connection: ClientConnection) {
  const lists = new Map<SessionId, readonly BackgroundWork[]>();
  connection.onMessage((direction, message) => {
    const { method, params } = message as { method?: string; params?: SessionNotification };
    if (direction !== 'in' || method !== 'session/update' || params === undefined) return;
    const update = params.update as { sessionUpdate: string; background?: unknown };
    if (update.sessionUpdate === 'state_update' && Array.isArray(update.background)) {
      lists.set(params.sessionId, update.background as BackgroundWork[]);
    }
  });
  return {
    /** The session's background list now; undefined while the agent reports none. */
    current: (sessionId: SessionId): readonly BackgroundWork[] | undefined => lists.get(sessionId),
  };
}

/**
 * What the user sees of each listed item: a terminal's command, output and exit status from the
 * client's store. An item the store does not hold (or of an unknown type) is still shown: the list
 * says background work runs, even when the client cannot show what it is.
 */
export function backgroundView(client: Client, list: readonly BackgroundWork[], sessionId: SessionId) {
  const { terminals, toolCalls } = client.store.snapshot(sessionId);
  return list.map((item) => {
    if (item.type === 'terminal' && 'terminalId' in item) {
      const terminal = terminals.find((t) => t.terminalId === item.terminalId);
      return { kind: 'terminal', command: terminal?.fields.command, output: terminal?.output ?? '' };
    }
    if (item.type === 'tool_call' && 'toolCallId' in item) {
      const call = toolCalls.find((t) => t.toolCallId === item.toolCallId);
      return { kind: 'tool call', title: call?.fields.title, status: call?.fields.status };
    }
    return { kind: `other (${item.type})` };
  });
}

/**
 * A second client attaching while background work runs: a resume with replay hands it every
 * retained update (so it holds the terminal and its output so far) before the state as of that
 * point, whose list names the terminal. Returns what it shows right after; it follows the rest live.
 */
export async function attachMidway(
  client: Client,
  tracker: ReturnType<typeof trackBackground>,
  sessionId: SessionId,
  cwd: string,
) {
  await client.resume(sessionId, { cwd, replay: true });
  return backgroundView(client, tracker.current(sessionId) ?? [], sessionId);
}
