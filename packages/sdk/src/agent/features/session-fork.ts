import type { ForkSessionRequest, SessionId } from '@acp-kit/schema';
import { isMessageKind } from '../../history/message-updates.js';
import type { NewLogEntry, SessionLog } from '../../history/session-log.js';
import { sessionNotFound } from '../sessions/session-directory.js';
import { settingsOf } from '../sessions/session-settings.js';
import { methodContext, type MethodFeature } from '../connection/serving.js';
import { newSession } from './sessions.js';

/** Entries read and appended per step while a fork copies its source's history. */
const COPY_PAGE = 1024;

/**
 * Copies the retained entries of `from` into `to`, in order, page by page: the fork's history
 * starts as its source's did. Each message's first entry claims its ID in the fork (IDs are per
 * session, so the fork keeps them). Live-only entries (state updates) are not copied: the fork
 * starts idle, with nothing running.
 */
async function copyRetained(log: SessionLog, from: SessionId, to: SessionId): Promise<void> {
  const claimed = new Set<string>();
  for (let after = 0; ; ) {
    const page = await log.read(from, { afterSeq: after, limit: COPY_PAGE, retainedOnly: true });
    if (page.entries.length === 0) return;
    const entries: NewLogEntry[] = page.entries.map(({ update }) => {
      const kind = (update as { sessionUpdate: string }).sessionUpdate;
      const messageId = (update as { messageId?: unknown }).messageId;
      if (!isMessageKind(kind) || typeof messageId !== 'string' || claimed.has(`${kind} ${messageId}`))
        return { update };
      claimed.add(`${kind} ${messageId}`);
      return { update, claim: { kind, messageId } };
    });
    await log.append(to, entries);
    after = page.entries.at(-1)!.seq;
  }
}

/**
 * `session/fork` (upstream's unstable surface), served when the agent advertises
 * `capabilities.session.fork`: a new session, set up as `session/new` sets one up (the
 * application's `onNewSession` is asked, with the fork's cwd, directories and MCP servers), that
 * holds the source's retained history before the response is sent; the forking connection is
 * attached to it. The source is only read. A copy that fails deletes the half-made fork.
 */
export const sessionFork: MethodFeature = (agent) => ({
  ...(agent.capabilities.session?.fork && {
    'session/fork': async (params: ForkSessionRequest, request, connection) => {
      const source = await agent.log.getSession(params.sessionId);
      if (!source) throw sessionNotFound(params.sessionId);
      // The fork's system prompt: the request's, or else the one stored with the source.
      const systemPrompt = params.systemPrompt ?? settingsOf(source).systemPrompt;
      const { session, response } = await newSession(
        agent,
        {
          cwd: params.cwd,
          ...(params.additionalDirectories === undefined
            ? {}
            : { additionalDirectories: params.additionalDirectories }),
          mcpServers: params.mcpServers ?? [],
          ...(systemPrompt === undefined ? {} : { systemPrompt }),
          ...(params._meta === undefined ? {} : { _meta: params._meta }),
        },
        methodContext(connection, request),
      );
      await agent.options.ownership?.created(session.id);
      try {
        await copyRetained(agent.log, params.sessionId, session.id);
      } catch (error) {
        await agent.deleteSession(session.id).catch(() => false);
        throw error;
      }
      connection.attach(session);
      return response;
    },
  }),
});
