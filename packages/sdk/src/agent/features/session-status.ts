import type { SessionStatusRequest, SessionStatusResponse } from '@acp-kit/schema';
import { sessionNotFound } from '../sessions/session-directory.js';
import type { MethodFeature } from '../connection/serving.js';

/**
 * `session/status` (upstream's unstable surface), served when the agent advertises
 * `capabilities.session.status`: `open` with the session's current activity (its latest state
 * update's state and background list) when this agent process holds the session in memory,
 * `saved` when only the log knows it, -32002 when neither does. Nothing is loaded, changed or
 * attached. With replicas the answer is this replica's: a session another replica runs is
 * `saved` here (resuming it through this replica works as for any saved session).
 */
export const sessionStatus: MethodFeature = (agent) => ({
  ...(agent.capabilities.session?.status && {
    'session/status': async (params: SessionStatusRequest): Promise<SessionStatusResponse> => {
      const live = agent.sessions.get(params.sessionId);
      if (live && !live.closed.aborted) {
        const background = live.reportedBackground;
        return {
          status: 'open',
          state: {
            state: live.reportedActivity,
            ...(background === undefined ? {} : { background: [...background] }),
          },
        };
      }
      if (!(await agent.log.getSession(params.sessionId))) throw sessionNotFound(params.sessionId);
      return { status: 'saved' };
    },
  }),
});
