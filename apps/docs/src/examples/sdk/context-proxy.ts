import type { ContentBlock } from '@acp-kit/schema';
import { type ProxyOptions, runProxy } from '@acp-kit/sdk/proxy';

/**
 * An ACP proxy (an unstable feature: upstream's proxy-chains draft) that adds project rules to
 * every prompt and says so in the initialize answer. Everything else crosses it unchanged: a
 * conductor initializes it with proxy/initialize and it forwards to its successor.
 */
export function contextProxy(rules: string): ProxyOptions {
  return {
    initialize: (result) => ({ ...result, _meta: { ...result._meta, 'example.com/rules': true } }),
    toAgent: {
      'session/prompt': (params, forward) => {
        const block: ContentBlock = { type: 'text', text: rules };
        return forward({ ...params, prompt: [...params.prompt, block] });
      },
    },
    toClient: {
      // Watch the agent's updates on their way to the client (forwarded unchanged here).
      'session/update': (params, forward) => forward(params),
    },
  };
}

// Started by a conductor as a child process: `acp-kit chain --proxy "node context-proxy.js" -- <agent>`.
if (process.argv[1]?.endsWith('context-proxy.js')) {
  void runProxy(contextProxy('Project rules: tabs, not spaces.'));
}
