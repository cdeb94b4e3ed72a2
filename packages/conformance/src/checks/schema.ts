import { type ValidationIssue, validate, validateParams, validateResult } from '@acp-kit/schema';
import { asRecord } from '../analysis/envelope.js';
import type { RequestRecord } from '../analysis/model.js';
import type { CheckOutcome } from '../rules/types.js';
import { type CheckContext, checked, notApplicable, type RawFinding, show } from './context.js';

/**
 * Issues another rule reports more precisely, by method and pointer prefix (relative to the
 * validated params or result). Each violation is reported once, under its most specific rule.
 */
const OWNED_ELSEWHERE: Record<string, readonly string[]> = {
  'session/update': ['/update/stopReason'],
  'session/prompt': ['/messageId'],
  // A missing agent info is baseline.initialize.info's finding.
  initialize: ['/info'],
};

function unowned(method: string, issues: readonly ValidationIssue[]): ValidationIssue[] {
  const owned = OWNED_ELSEWHERE[method] ?? [];
  return issues.filter(
    (issue) => !owned.some((prefix) => issue.pointer === prefix || issue.pointer.startsWith(`${prefix}/`)),
  );
}

/** The value an RFC 6901 pointer designates, or undefined when it designates nothing. */
function valueAt(root: unknown, pointer: string): unknown {
  let value = root;
  for (const token of pointer.split('/').slice(1)) {
    const key = token.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function issueFinding(
  index: number,
  what: string,
  prefix: string,
  validated: unknown,
  issues: readonly ValidationIssue[],
): RawFinding {
  const first = issues[0]!;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue(s))` : '';
  const value = valueAt(validated, first.pointer);
  return {
    index,
    message: `${what} is invalid at ${prefix}${first.pointer}${more}`,
    expected: first.expected ?? first.message,
    actual: first.keyword === 'required' || value === undefined ? 'missing' : show(value),
  };
}

/** update.schema */
export function checkUpdateSchema(context: CheckContext): CheckOutcome {
  const { analysis } = context;
  if (analysis.updates.length === 0) return notApplicable('the agent sent no session/update');
  const findings: RawFinding[] = [];
  for (const update of analysis.updates) {
    const params = analysis.envelopes[update.index]!.params;
    const result = validateParams('session/update', params);
    if (!result || result.ok) continue;
    const issues = unowned('session/update', result.issues);
    if (issues.length > 0)
      findings.push(issueFinding(update.index, 'session/update', '/params', params, issues));
  }
  return checked(findings);
}

/** update.session-id */
export function checkUpdateSessionIds(context: CheckContext): CheckOutcome {
  const { analysis } = context;
  if (analysis.updates.length === 0) return notApplicable('the agent sent no session/update');
  const known = new Set<unknown>(analysis.created.keys());
  // A transcript may end while a request naming a session is still unanswered (a live view taken
  // mid-replay of a session/resume): its session's updates after the request are not findings, as
  // the answer that would establish or refuse the session has not come yet.
  const awaited = new Map<unknown, number>();
  for (const request of analysis.requests) {
    if (request.from !== 'client') continue;
    const sessionId = asRecord(request.params)?.sessionId;
    if (request.response === undefined) {
      if (typeof sessionId === 'string' && !awaited.has(sessionId)) awaited.set(sessionId, request.index);
      continue;
    }
    if (!request.response.ok) continue;
    if (typeof sessionId === 'string') known.add(sessionId);
    // A fork's answer names the new session (unstable session/fork).
    const forked =
      request.method === 'session/fork' ? asRecord(request.response.result)?.sessionId : undefined;
    if (typeof forked === 'string') known.add(forked);
  }
  // A subagent becomes known once a known session announced it (unstable subagent_update); an
  // update for it before that is still a finding here (and under subagent.announced-first).
  const findings: RawFinding[] = [];
  for (const update of analysis.updates) {
    const since = awaited.get(update.sessionId);
    if (!known.has(update.sessionId) && !(since !== undefined && update.index > since)) {
      findings.push({
        index: update.index,
        message:
          'session/update for a session this client never created, resumed, forked or successfully prompted, and no known session announced as a subagent before it',
        expected: `one of ${[...known].map((id) => show(id)).join(', ') || '(no session established)'}`,
        actual: `sessionId ${show(update.sessionId)}`,
      });
      continue;
    }
    const child = update.sessionUpdate === 'subagent_update' ? asRecord(update.update)?.sessionId : undefined;
    if (typeof child === 'string') known.add(child);
  }
  return checked(findings);
}

/** Checks one side's messages: envelopes, params by method, results by the request they answer. */
function checkSide(context: CheckContext, side: 'agent' | 'client'): CheckOutcome {
  const { analysis } = context;
  const findings: RawFinding[] = [];
  const answered = new Map<number, RequestRecord>();
  for (const request of analysis.requests)
    if (request.response) answered.set(request.response.index, request);
  let examined = 0;
  analysis.entries.forEach((entry, index) => {
    if ((entry.dir === 'agent->client') !== (side === 'agent')) return;
    examined += 1;
    const envelope = analysis.envelopes[index]!;
    const message = entry.msg;
    switch (envelope.kind) {
      case 'invalid':
        findings.push({
          index,
          message: 'not a JSON-RPC 2.0 request, notification or response',
          expected: 'an object with method, result or error',
          actual: show(message),
        });
        return;
      case 'request':
      case 'notification': {
        const definition = envelope.kind === 'request' ? 'JsonRpcRequest' : 'JsonRpcNotification';
        const shape = validate(definition, message);
        if (!shape.ok) {
          findings.push(
            issueFinding(index, `${envelope.method} ${envelope.kind}`, '', message, shape.issues),
          );
          return;
        }
        // session/update params belong to update.schema.
        if (side === 'agent' && envelope.method === 'session/update') return;
        const params = validateParams(envelope.method!, envelope.params);
        if (params && !params.ok) {
          findings.push(
            issueFinding(index, `${envelope.method} params`, '/params', envelope.params, params.issues),
          );
        }
        return;
      }
      case 'error': {
        const shape = validate('JsonRpcErrorResponse', message);
        if (!shape.ok) findings.push(issueFinding(index, 'error response', '', message, shape.issues));
        return;
      }
      case 'success': {
        const shape = validate('JsonRpcSuccessResponse', message);
        if (!shape.ok) {
          findings.push(issueFinding(index, 'response', '', message, shape.issues));
          return;
        }
        const request = answered.get(index);
        if (!request) {
          findings.push({
            index,
            message: 'response to a request that was never sent or was already answered',
            expected: 'the id of a pending request',
            actual: `id ${show(envelope.id)}`,
          });
          return;
        }
        const result = validateResult(request.method, envelope.result);
        if (!result || result.ok) return;
        const issues = unowned(request.method, result.issues);
        if (issues.length > 0)
          findings.push(issueFinding(index, `${request.method} result`, '/result', envelope.result, issues));
        return;
      }
    }
  });
  if (examined === 0) return notApplicable(`the ${side} sent nothing`);
  return checked(findings);
}

/** agent-message.schema */
export function checkAgentMessages(context: CheckContext): CheckOutcome {
  return checkSide(context, 'agent');
}

/** client-message.schema (lint only: the live kit breaks client messages on purpose) */
export function checkClientMessages(context: CheckContext): CheckOutcome {
  if (context.live)
    return notApplicable('the live kit sends invalid prompts on purpose; checked by lint only');
  return checkSide(context, 'client');
}
