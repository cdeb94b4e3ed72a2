import { sessionNotFound } from '../sessions/session-directory.js';
import { updateSettings } from '../sessions/session-settings.js';
import { methodContext, type MethodFeature } from '../connection/serving.js';
import { closeEverywhere } from './work-requests.js';

/**
 * `session/archive` and `session/unarchive` (upstream's unstable surface), served when the agent
 * advertises `capabilities.session.archive` (then `session/list` also takes the `archived` filter
 * and reports `archived` on every session: see `listSessionPage`). Archiving closes the session as
 * `session/close` does — its turn, if one runs, ends `cancelled` and its clients are detached —
 * and keeps its ID and history; the mark lives in the session's directory record, so it survives
 * a restart in every store. Unarchiving only clears the mark: nothing is loaded or resumed. Both
 * succeed when there is nothing to change; an unknown session gets -32002.
 */
export const sessionArchive: MethodFeature = (agent) => ({
  ...(agent.capabilities.session?.archive && {
    'session/archive': async (params, request, connection) => {
      // Closed first where its work runs, as session/close does; then marked.
      await closeEverywhere(agent, params.sessionId, methodContext(connection, request));
      await updateSettings(agent.log, params.sessionId, (current) => ({ ...current, archived: true }));
      return {};
    },
    'session/unarchive': async (params) => {
      if (!(await agent.log.getSession(params.sessionId))) throw sessionNotFound(params.sessionId);
      await updateSettings(agent.log, params.sessionId, (current) => ({ ...current, archived: false }));
      return {};
    },
  }),
});
