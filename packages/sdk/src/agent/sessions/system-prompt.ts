import type { AgentCapabilities, SystemPrompt } from '@acp-kit/schema';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';

function refused(pointer: string, message: string, expected: string): RpcError {
  return new RpcError(ErrorCodes.InvalidParams, message, {
    pointer: `/params/systemPrompt${pointer}`,
    expected,
  });
}

/**
 * The system prompt a `session/new`, `session/resume` or `session/fork` carries (unstable), checked
 * against what the agent advertises: undefined when the request has none (omitted or null), the
 * prompt when the agent can apply it, and otherwise -32602 at the pointer of what it cannot — a
 * request to an agent without `capabilities.session.systemPrompt`, a mode it did not advertise
 * (`override` needs `systemPrompt.mode.override`; an unknown mode is never read as another), an
 * empty content list, or a block that is not text. Checked before anything is created or changed.
 */
export function checkSystemPrompt(
  capabilities: AgentCapabilities,
  systemPrompt: SystemPrompt | null | undefined,
): SystemPrompt | undefined {
  if (systemPrompt === undefined || systemPrompt === null) return undefined;
  const advertised = capabilities.session?.systemPrompt;
  if (advertised === undefined || advertised === null) {
    throw refused(
      '',
      'This agent does not take a system prompt (it does not advertise capabilities.session.systemPrompt)',
      'no systemPrompt',
    );
  }
  const modes = ['append', ...(advertised.mode?.override != null ? ['override'] : [])];
  if (!modes.includes(systemPrompt.mode)) {
    throw refused(
      '/mode',
      `System prompt mode ${JSON.stringify(systemPrompt.mode)} is not supported by this agent`,
      modes.join(' or '),
    );
  }
  if (systemPrompt.content.length === 0) {
    throw refused(
      '/content',
      'A system prompt needs at least one content block',
      'a non-empty list of text blocks',
    );
  }
  for (const [index, block] of systemPrompt.content.entries()) {
    if (block.type !== 'text') {
      throw refused(
        `/content/${index}/type`,
        `System prompt content must be text; block ${index} is ${JSON.stringify(block.type)}`,
        'text',
      );
    }
  }
  return systemPrompt;
}
