/**
 * The request behind `Client.setConfigOption`'s two forms: a session, option and value (a string
 * chooses a select option by ID, a boolean sets a boolean option), or a whole request.
 */
import type { SessionId, SetSessionConfigOptionRequest } from '@acp-kit/schema';
import type { CallOptions } from './client-options.js';

/** The request and call options of a `setConfigOption` call, from its arguments in either form. */
export function configOptionCall(
  first: SessionId | SetSessionConfigOptionRequest,
  second?: string | CallOptions,
  value?: string | boolean,
  last?: CallOptions,
): { request: SetSessionConfigOptionRequest; options: CallOptions } {
  if (typeof first !== 'string')
    return { request: first, options: (second as CallOptions | undefined) ?? {} };
  const configId = second as string;
  const request: SetSessionConfigOptionRequest =
    typeof value === 'boolean'
      ? { type: 'boolean', sessionId: first, configId, value }
      : { type: 'id', sessionId: first, configId, value: value as string };
  return { request, options: last ?? {} };
}
