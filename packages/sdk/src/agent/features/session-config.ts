import { applyConfigOption } from '../config-options.js';
import { sessionNotFound } from '../session-directory.js';
import { methodContext, type MethodFeature, runHandler } from '../serving.js';

/**
 * A session's settings as the client changes them: `session/set_config_option` (the built-in, or
 * the application's `setConfigOption`), kept in the directory and reported as
 * `config_option_update`.
 */
export const sessionConfig: MethodFeature = (agent, connection) => ({
  'session/set_config_option': async (params, request) => {
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
});
