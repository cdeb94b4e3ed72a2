import type { BridgeFeature } from './index.js';
import { relay } from './relay.js';

/** The configurable LLM providers (unstable in both): relayed as the generated mapping converts them. */
export const providers: BridgeFeature = (bridge) => ({
  'providers/list': relay(bridge, 'providers/list'),
  'providers/set': relay(bridge, 'providers/set'),
  'providers/disable': relay(bridge, 'providers/disable'),
});
