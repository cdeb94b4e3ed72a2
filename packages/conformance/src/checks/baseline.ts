import { asRecord } from '../analysis/envelope.js';
import type { RequestRecord } from '../analysis/model.js';
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
  const requests = answered(context, 'session/list');
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
