import { ErrorCodes, RpcError } from '@acp-kit/sdk';
import type { BridgeCore } from '../bridge-core.js';
import type { BridgeFeature } from './index.js';

/** The proxy-chain methods (unstable in both versions), which the bridge does not carry. */
export const PROXY_METHODS: ReadonlySet<string> = new Set(['proxy/initialize', 'proxy/successor']);

/** The -32601 for a proxy-chain method, whichever side sent it. */
export function proxyRefusal(method: string, from: string): RpcError {
  return new RpcError(
    ErrorCodes.MethodNotFound,
    `${method} from the ${from} is not carried: the v1 bridge does not carry proxy chains (put the bridge after the last proxy of a chain)`,
    { method },
  );
}

/** A v2 client's proxy-chain request: reported, and refused -32601 (before initialize too). */
function refuseProxy(bridge: BridgeCore, method: string): never {
  bridge.lost(method, '', 'the v1 bridge does not carry proxy chains');
  throw proxyRefusal(method, 'v2 client');
}

/**
 * Proxy chains are not carried: a v2 client's `proxy/initialize` and `proxy/successor` are
 * refused (the notification form of `proxy/successor` is dropped and reported, see
 * {@link dropProxyNotification}); the v1 agent's are refused in `v1-agent-handlers.ts`.
 */
export const proxyChains: BridgeFeature = (bridge) => ({
  'proxy/initialize': () => refuseProxy(bridge, 'proxy/initialize'),
  'proxy/successor': () => refuseProxy(bridge, 'proxy/successor'),
});

/** The notification form of `proxy/successor` (a conductor forwarding session/cancel, say): reported. */
export function dropProxyNotification(bridge: BridgeCore): void {
  bridge.lost('proxy/successor', '', 'the v1 bridge does not carry proxy chains (notification dropped)');
}
