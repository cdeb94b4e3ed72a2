import type { BridgeCore } from '../bridge-core.js';
import type { ClientLink } from '../client-link.js';
import { auth } from './auth.js';
import { connectionLifecycle } from './connection-lifecycle.js';
import { mcpOverAcp } from './mcp-over-acp.js';
import { nes } from './nes.js';
import { prompts } from './prompts.js';
import { providers } from './providers.js';
import { proxyChains } from './proxy-chains.js';
import { sessionConfig } from './session-config.js';
import { sessionLifecycle } from './session-lifecycle.js';
import { sessionSetup } from './session-setup.js';
import type { AgentMethodHandlers } from '@acp-kit/sdk/adapter';

/**
 * A feature module of the v1 agent bridge: the v2 handlers of one family of methods, keyed by
 * method name, built once per bridge from its {@link BridgeCore}; each call is given the
 * {@link ClientLink} of the v2 client connection it arrived on (as the SDK's agent features are
 * given their `ConnectionHost`).
 */
export type BridgeFeature = (bridge: BridgeCore) => AgentMethodHandlers<ClientLink>;

/**
 * Every method family the bridge serves to v2 clients, one feature module each. A new method goes
 * into its family's module (or a new module listed here); the gate of each client connection
 * applies the checks every method gets.
 */
export const BRIDGE_FEATURES: readonly BridgeFeature[] = [
  connectionLifecycle,
  sessionSetup,
  sessionLifecycle,
  sessionConfig,
  auth,
  prompts,
  providers,
  nes,
  mcpOverAcp,
  proxyChains,
];

/** The handlers of every feature of {@link BRIDGE_FEATURES}, for one bridge. */
export function bridgeHandlers(bridge: BridgeCore): AgentMethodHandlers<ClientLink> {
  return Object.assign({}, ...BRIDGE_FEATURES.map((feature) => feature(bridge)));
}
