import { validate } from '@acp-kit/schema';
import type { ValidationResult, Validator } from '../rpc/validation.js';
import { PROXY_INITIALIZE_METHOD, SUCCESSOR_METHODS } from './dialect.js';

const ENVELOPES = new Set([
  SUCCESSOR_METHODS.acp.request,
  SUCCESSOR_METHODS.sacp.request,
  SUCCESSOR_METHODS.sacp.notification,
]);

/**
 * Validates what a proxy chain itself defines and nothing else: `proxy/initialize` params as
 * InitializeProxyRequest and every successor envelope (`proxy/successor`, or the sacp
 * dialect's) as ProxySuccessorRequest, so a malformed one is answered -32602 at its pointer
 * (`/params/method`). The wrapped messages pass unchecked — the client and the agent at the ends
 * of the chain validate them — so a proxy or a conductor forwards a newer peer's fields untouched.
 * The notification form of `proxy/successor` has the same shape as the request form.
 */
export const envelopeValidator: Validator = {
  params(method: string, value: unknown): ValidationResult | undefined {
    if (method === PROXY_INITIALIZE_METHOD) return validate('InitializeProxyRequest', value);
    if (ENVELOPES.has(method)) return validate('ProxySuccessorRequest', value ?? {});
    return undefined;
  },
  result: () => undefined,
};
