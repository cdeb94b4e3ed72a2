import { METHODS } from '@acp-kit/schema';
import { asRecord } from '../analysis/envelope.js';
import type { CheckOutcome } from '../rules/types.js';
import { type CheckContext, checked, notApplicable, type RawFinding, show } from './context.js';

/** Methods whose params require no property, from the schema's method table. */
const PARAMS_OPTIONAL: ReadonlySet<string> = new Set(
  METHODS.filter((method) => method.paramsOptional).map((method) => method.name),
);

/** Codes that refuse the request's shape rather than what it asks for. */
const SHAPE_REFUSALS: Record<number, string> = {
  [-32602]: 'invalid params',
  [-32600]: 'an invalid request',
};

/**
 * jsonrpc.params.omitted. JSON-RPC 2.0 lets a request omit `params`; for a method whose params
 * require nothing, the omission means `{}`. Any answer but a refusal of the request's shape passes
 * (a method the agent does not serve may still be -32601, a login it needs -32000).
 */
export function checkOmittedParams(context: CheckContext): CheckOutcome {
  const requests = context.analysis.requests.filter(
    (request) =>
      request.from === 'client' &&
      request.params === undefined &&
      PARAMS_OPTIONAL.has(request.method) &&
      request.response !== undefined,
  );
  if (requests.length === 0) {
    return notApplicable('no request without params was answered for a method whose params require nothing');
  }
  const findings: RawFinding[] = [];
  for (const request of requests) {
    const response = request.response!;
    if (response.ok) continue;
    const code = asRecord(response.error)?.code;
    const refusal = typeof code === 'number' ? SHAPE_REFUSALS[code] : undefined;
    if (refusal === undefined) continue;
    findings.push({
      index: response.index,
      message: `${request.method} without params was refused as ${refusal}, though its params require no property`,
      expected: 'the answer the request with "params": {} gets',
      actual: `error ${show(response.error)}`,
    });
  }
  return checked(findings);
}
