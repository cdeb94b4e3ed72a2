import { writeSync } from 'node:fs';
import type { ContentBlock, InitializeResponse } from '@acp-kit/schema';
import type { ProxyOptions } from '@acp-kit/sdk/proxy';
import { openConversationFile } from '../conversation-file.js';

/** The `_meta` key of an initialize result that lists the acp-kit proxies of the chain, client side first. */
export const PROXIES_META_KEY = 'acp-kit.dev/proxies';

/** What `acp-kit proxy` does. */
export interface ReferenceProxySettings {
  /** Listed in the initialize result's `_meta["acp-kit.dev/proxies"]`. */
  readonly name: string;
  /** A text block put after the blocks of every prompt (project rules, say). */
  readonly context?: string;
  /**
   * An ndjson file every message crossing the proxy is appended to, with its direction. It holds
   * the conversation, so it is made readable by its owner only (0600) before anything is written.
   */
  readonly log?: string;
}

/**
 * The options of the proxy `acp-kit proxy` runs: it adds its name in front of the chain's list
 * in the initialize result, adds the `--context` text as a last block to each non-empty
 * `session/prompt` (after the user's, so a prompt that starts with a command still does), and
 * appends every message it sees to the `--log` file (opened here, mode 0600: it throws when the
 * file cannot be made private); everything else passes unchanged.
 */
export function referenceProxy(settings: ReferenceProxySettings): ProxyOptions {
  const { context, log } = settings;
  const logFd = log === undefined ? undefined : openConversationFile(log, 'a');
  return {
    initialize: (result: InitializeResponse) => {
      const meta = result._meta ?? {};
      const listed = Array.isArray(meta[PROXIES_META_KEY]) ? (meta[PROXIES_META_KEY] as unknown[]) : [];
      return { ...result, _meta: { ...meta, [PROXIES_META_KEY]: [settings.name, ...listed] } };
    },
    ...(context === undefined
      ? {}
      : {
          toAgent: {
            'session/prompt': (params, forward) => {
              // A prompt that is not a non-empty list stays as it is: a proxy must not turn a
              // prompt the agent has to refuse (an empty one) into one it accepts.
              if (!Array.isArray(params.prompt) || params.prompt.length === 0) return forward(params);
              const block: ContentBlock = { type: 'text', text: context };
              return forward({ ...params, prompt: [...params.prompt, block] });
            },
          },
        }),
    ...(logFd === undefined ? {} : { observe: (event) => writeSync(logFd, `${JSON.stringify(event)}\n`) }),
    onProblem: (message) => process.stderr.write(`acp-kit proxy: ${message}\n`),
  };
}
