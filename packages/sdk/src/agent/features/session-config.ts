import { ErrorCodes, RpcError } from '../../rpc/errors.js';
import { applyConfigOption } from '../sessions/config-options.js';
import { sessionNotFound } from '../sessions/session-directory.js';
import { methodContext, type MethodFeature, runHandler } from '../connection/serving.js';

/**
 * A session's settings as the client changes them: `session/set_config_option` (the built-in, or
 * the application's `setConfigOption`), kept in the directory and reported as
 * `config_option_update`; and, when the agent advertises `capabilities.session.title`,
 * `session/set_title` (unstable): the title trimmed (-32602 when nothing is left), kept in the
 * directory for any session the log knows (-32002 otherwise), reported as `session_info_update`,
 * and answered as stored.
 */
export const sessionConfig: MethodFeature = (agent) => ({
  'session/set_config_option': async (params, request, connection) => {
    const session = await agent.session(params.sessionId);
    if (!session) throw sessionNotFound(params.sessionId);
    const current = await session.configOptions();
    const set = agent.options.setConfigOption;
    const next = set
      ? await runHandler(agent, 'setConfigOption', session.id, () =>
          set(params, {
            ...methodContext(connection, request),
            session,
            current,
            builtIn: applyConfigOption,
          }),
        )
      : applyConfigOption(params, current);
    await session.setConfigOptions(next);
    return { configOptions: [...next] };
  },
  ...(agent.capabilities.session?.title && {
    'session/set_title': async (params) => {
      const title = params.title.trim();
      if (title === '') {
        throw new RpcError(ErrorCodes.InvalidParams, 'The title is empty after trimming whitespace', {
          pointer: '/params/title',
          expected: 'a title with a character that is not whitespace',
        });
      }
      const session = await agent.session(params.sessionId);
      if (!session) throw sessionNotFound(params.sessionId);
      await session.setTitle(title);
      return { title };
    },
  }),
});
