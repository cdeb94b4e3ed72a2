import { v1ToV2InitializeResponse } from '../../generated/compat/converters.js';
import type { BridgeFeature } from './index.js';

/**
 * `initialize`: the v1 agent is initialized once, by the bridge (with the first client's info);
 * each v2 client gets the translated answer, and its gate advertises what that answer does.
 */
export const connectionLifecycle: BridgeFeature = (bridge) => ({
  initialize: async (params, _request, link) => {
    const response = v1ToV2InitializeResponse(await bridge.v1Capabilities(params));
    // Every v1 agent serves the baseline session methods, whatever capabilities it lists.
    const capabilities = { ...response.capabilities, session: response.capabilities?.session ?? {} };
    link.gate.adapt({
      capabilities,
      ...(response.authMethods === undefined ? {} : { authMethods: response.authMethods }),
    });
    link.state.initialized = true;
    bridge.clients.add(link.connection);
    return { ...response, ...link.gate.advertisement() };
  },
});
