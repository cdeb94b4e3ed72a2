import type { MethodFeature } from '../connection/serving.js';

/**
 * `providers/list`, `providers/set` and `providers/disable` (upstream's unstable surface), served
 * when the agent is given provider definitions (the `providers` option), which also advertises
 * `capabilities.providers`. They act on the agent's {@link ProviderRegistry}, shared by every
 * connection.
 */
export const providers: MethodFeature = (agent) => {
  const registry = agent.providers;
  if (registry === undefined) return {};
  return {
    'providers/list': async () => ({ providers: registry.list() }),
    'providers/set': async (params) => {
      registry.set(params);
      return {};
    },
    'providers/disable': async (params) => {
      registry.disable(params);
      return {};
    },
  };
};
