import { ErrorCodes, RpcError } from '@acp-kit/sdk';
import {
  v1ToV2AuthenticateResponse,
  v1ToV2LogoutResponse,
  v2ToV1Authenticate,
  v2ToV1Logout,
} from '../../generated/compat/converters.js';
import type { BridgeFeature } from './index.js';
import { relay } from './relay.js';

/**
 * Authentication: `auth/login` (a v1 `authenticate`), `auth/logout` (served when the v1 agent
 * says it can log out: v2 advertises logout with the auth methods, v1 separately) and the
 * unstable `auth/status`, relayed. The v1 agent's `auth/status_update` reaches every client
 * (`v1-agent-handlers.ts`).
 */
export const auth: BridgeFeature = (bridge) => ({
  'auth/login': async (params) => {
    await bridge.v1Capabilities();
    const result = await bridge.call(() => bridge.v1.sendRequest('authenticate', v2ToV1Authenticate(params)));
    return v1ToV2AuthenticateResponse(result);
  },

  'auth/logout': async (params) => {
    const caps = (await bridge.v1Capabilities()).agentCapabilities;
    if (caps?.auth?.logout === undefined || caps.auth.logout === null) {
      throw new RpcError(ErrorCodes.MethodNotFound, 'The v1 agent does not support logout', {
        method: 'auth/logout',
      });
    }
    const result = await bridge.call(() => bridge.v1.sendRequest('logout', v2ToV1Logout(params)));
    return v1ToV2LogoutResponse(result);
  },

  'auth/status': relay(bridge, 'auth/status'),
});
