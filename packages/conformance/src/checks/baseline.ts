import { asRecord } from '../analysis/envelope.js';
import type { Analysis, RequestRecord } from '../analysis/model.js';
import type { CheckOutcome } from '../rules/types.js';
import { type CheckContext, checked, notApplicable, type RawFinding, show } from './context.js';

/** Client requests of one method that got an answer, in order. */
function answered(context: CheckContext, method: string): RequestRecord[] {
  return context.analysis.requests.filter(
    (request) => request.from === 'client' && request.method === method && request.response !== undefined,
  );
}

/** baseline.initialize.info */
export function checkInitializeInfo(context: CheckContext): CheckOutcome {
  const findings: RawFinding[] = [];
  const successes = answered(context, 'initialize').filter((request) => request.response!.ok);
  if (successes.length === 0) return notApplicable('no initialize was answered with success');
  for (const request of successes) {
    const info = asRecord(asRecord(request.response!.result)?.info);
    const name = info?.name;
    const version = info?.version;
    if (typeof name === 'string' && name !== '' && typeof version === 'string') continue;
    findings.push({
      index: request.response!.index,
      message: 'the initialize response does not say which agent answered',
      expected: 'result.info with a non-empty name and a version string',
      actual: `info ${show(asRecord(request.response!.result)?.info)}`,
    });
  }
  return checked(findings);
}

/** baseline.session-list */
export function checkSessionList(context: CheckContext): CheckOutcome {
  // One without params is judged by jsonrpc.params.omitted.
  const requests = answered(context, 'session/list').filter((request) => request.params !== undefined);
  if (requests.length === 0) return notApplicable('no session/list was answered');
  const findings: RawFinding[] = [];
  for (const request of requests) {
    const response = request.response!;
    if (response.ok && Array.isArray(asRecord(response.result)?.sessions)) continue;
    findings.push({
      index: response.index,
      message: 'session/list, required of every v2 agent, was not answered with a page of sessions',
      expected: 'a result with a sessions array',
      actual: response.ok ? `result ${show(response.result)}` : `error ${show(response.error)}`,
    });
  }
  return checked(findings);
}

/** baseline.session-close */
export function checkSessionClose(context: CheckContext): CheckOutcome {
  const { analysis } = context;
  const requests = answered(context, 'session/close').filter((request) => {
    const sessionId = asRecord(request.params)?.sessionId;
    const created = typeof sessionId === 'string' ? analysis.created.get(sessionId) : undefined;
    return created !== undefined && created < request.index;
  });
  if (requests.length === 0) return notApplicable('no session/close of a session created here was answered');
  const findings: RawFinding[] = [];
  for (const request of requests) {
    const response = request.response!;
    if (response.ok) continue;
    findings.push({
      index: response.index,
      message: `session/close of session ${show(asRecord(request.params)?.sessionId)}, created on this connection, failed`,
      expected: 'a success response (session/close is required of every v2 agent)',
      actual: `error ${show(response.error)}`,
    });
  }
  return checked(findings);
}

/**
 * The prefix of every value the live kit sends from a later protocol version: not `_`-prefixed,
 * so to the agent it is a reserved value it cannot know, which v2 says it must tolerate.
 */
export const FUTURE_VALUE_PREFIX = 'acp_kit_future_';

/** True when a string of the kit's later-version values occurs anywhere in `value`. */
function carriesFutureValue(value: unknown): boolean {
  if (typeof value === 'string') return value.startsWith(FUTURE_VALUE_PREFIX);
  if (Array.isArray(value)) return value.some(carriesFutureValue);
  if (value !== null && typeof value === 'object') return Object.values(value).some(carriesFutureValue);
  return false;
}

/**
 * True when a request went unanswered because of a value from a later protocol version: it
 * carried one, or it came after a request that carried one and was never answered (an agent stuck
 * on it). Such silence is a baseline.unknown-values finding, not also a finding of the rule that
 * would otherwise own an unanswered request.
 */
export function stuckOnFutureValue(analysis: Analysis, request: RequestRecord): boolean {
  if (request.response !== undefined || request.from !== 'client') return false;
  if (carriesFutureValue(request.params)) return true;
  return analysis.requests.some(
    (earlier) =>
      earlier.from === 'client' &&
      earlier.index < request.index &&
      earlier.response === undefined &&
      carriesFutureValue(earlier.params),
  );
}

/** Error codes that say the agent failed, not that it refused the content: a crash in handling, or a broken envelope. */
const NOT_A_REFUSAL: Record<number, string> = {
  [-32603]: 'an internal error (handling the value failed)',
  [-32700]: 'a parse error (the message itself was well-formed JSON)',
  [-32600]: 'an invalid-request error (the envelope was valid JSON-RPC)',
};

/** baseline.unknown-values */
export function checkUnknownValuesTolerated(context: CheckContext): CheckOutcome {
  const clientRequests = context.analysis.requests.filter((request) => request.from === 'client');
  const carrying = clientRequests.filter((request) => carriesFutureValue(request.params));
  if (carrying.length === 0) {
    return notApplicable('no client request carried an enum value or union variant from a later version');
  }
  const last = carrying.at(-1)!;
  const later = clientRequests.filter((request) => request.index > last.index);
  const laterAnswered = later.some((request) => request.response !== undefined);
  const findings: RawFinding[] = [];
  for (const request of carrying) {
    const response = request.response;
    if (response === undefined) {
      // A transcript may end before an answer came; in a live run, or when a later request was
      // answered, the agent has had its chance.
      if (!context.live && !laterAnswered) continue;
      findings.push({
        index: request.index,
        message: `${request.method} carrying a value from a later protocol version was never answered`,
        expected: 'a result, or a JSON-RPC error refusing what the agent cannot process',
        actual: 'no response',
      });
      continue;
    }
    if (response.ok) continue;
    const error = asRecord(response.error);
    const code = error?.code;
    const message = error?.message;
    const failure = typeof code === 'number' ? NOT_A_REFUSAL[code] : undefined;
    if (Number.isInteger(code) && typeof message === 'string' && message !== '' && failure === undefined) {
      continue;
    }
    findings.push({
      index: response.index,
      message: `${request.method} carrying a value from a later protocol version was answered with ${failure ?? 'an error without an integer code and a message'}`,
      expected: 'a result, or a JSON-RPC error refusing the content (e.g. -32602 with a pointer)',
      actual: `error ${show(response.error)}`,
    });
  }
  if (later.length > 0 && !laterAnswered) {
    findings.push({
      index: later[0]!.index,
      message: `after values from a later protocol version, the agent answered none of the ${later.length} request(s) that followed`,
      expected: 'the connection keeps working: later requests are answered',
      actual: `no response to ${later[0]!.method}`,
    });
  }
  return checked(findings);
}
