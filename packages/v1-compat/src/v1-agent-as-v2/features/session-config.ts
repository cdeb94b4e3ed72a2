import type { SetSessionTitleResponse } from '@acp-kit/schema';
import { convertParams } from '../../compat-error.js';
import {
  v2ToV1SetSessionConfigOptionRequest,
  v2ToV1SetSessionMode,
} from '../../generated/compat/converters.js';
import type { BridgeFeature } from './index.js';

/**
 * A session's settings: `session/set_config_option` (a v1 `session/set_mode` for the option that
 * stands for the v1 modes) and the unstable `session/set_title`, served when the v1 agent
 * advertises it (the gate refuses it otherwise, -32601).
 */
export const sessionConfig: BridgeFeature = (bridge) => ({
  'session/set_config_option': async (params) => {
    const session = bridge.require(params.sessionId);
    if (session.options.isMode(params.configId)) {
      // The option that stands for the v1 modes: a v1 session/set_mode.
      const request = convertParams(() => v2ToV1SetSessionMode(params), '/params');
      await bridge.call(() => bridge.v1.sendRequest('session/set_mode', request));
      session.options.take({ modes: session.options.modesWith(request.modeId) });
    } else {
      const result = await bridge.call(() =>
        bridge.v1.sendRequest('session/set_config_option', v2ToV1SetSessionConfigOptionRequest(params)),
      );
      session.options.take(result);
    }
    return { configOptions: session.options.v2() ?? [] };
  },

  'session/set_title': async (params) => {
    const response = (await bridge.relay('session/set_title', params)) as SetSessionTitleResponse;
    // v2 promises attached clients the stored title as a session_info_update, after the
    // updates the v1 agent sent before its answer (on the session's queue, as they are).
    await bridge.sessions
      .get(params.sessionId)
      ?.report({ sessionUpdate: 'session_info_update', title: response.title });
    return response;
  },
});
