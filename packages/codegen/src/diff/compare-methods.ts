import type { JsonObject } from '../json.js';
import type { Effect, Finding } from './change.js';
import { type CompareContext, compareNode } from './compare-nodes.js';
import type { DiffMethod, SchemaView } from './schema-view.js';

const DIRECTION_TEXT = {
  client_to_agent: 'client → agent',
  agent_to_client: 'agent → client',
  both: 'both ways',
};

function finding(m: DiffMethod, rule: string, effect: Effect, reason: string, pointer = m.pointer): Finding {
  return { subject: m.name, subjectKind: 'method', pointer, rule, effect, reason };
}

/**
 * Compares the methods of two schemas: added, removed, re-directed and re-gated methods, and the
 * params or result of a method that now names another definition (compared structurally).
 */
export function compareMethods(old: SchemaView, next: SchemaView, findings: Finding[]): void {
  for (const [name, m] of next.methods) {
    const before = old.methods.get(name);
    if (before === undefined) {
      if (m.kind === 'notification')
        findings.push(
          finding(m, 'notification-added', 'additive', 'new notification: old receivers ignore it'),
        );
      else if (m.capability !== undefined)
        findings.push(
          finding(
            m,
            'method-added-gated',
            'additive',
            `new method, gated by ${m.capability}: called only on peers that advertise it`,
          ),
        );
      else
        findings.push(
          finding(
            m,
            'method-added',
            'widen',
            'new baseline method: an old receiver answers -32601 (method not found)',
          ),
        );
      continue;
    }
    if (before.direction !== m.direction)
      findings.push(
        finding(
          m,
          'direction-changed',
          'both',
          `direction changed from ${DIRECTION_TEXT[before.direction]} to ${DIRECTION_TEXT[m.direction]}`,
        ),
      );
    if (before.kind !== m.kind)
      findings.push(finding(m, 'kind-changed', 'both', `changed from a ${before.kind} to a ${m.kind}`));
    if (before.capability !== m.capability) {
      if (before.capability === undefined)
        findings.push(
          finding(
            m,
            'capability-required',
            'narrow',
            `now gated by ${m.capability}: old callers call it without checking, new receivers that do not advertise it refuse`,
          ),
        );
      else if (m.capability === undefined)
        findings.push(
          finding(
            m,
            'capability-dropped',
            'additive',
            `no longer gated by ${before.capability}: now baseline`,
          ),
        );
      else
        findings.push(
          finding(
            m,
            'capability-changed',
            'narrow',
            `gate moved from ${before.capability} to ${m.capability}: old callers check the old one`,
          ),
        );
    }
    for (const part of ['params', 'result'] as const) {
      const o = before[part];
      const n = m[part];
      if (o === n || o === undefined || n === undefined) continue;
      findings.push(
        finding(
          m,
          `${part}-renamed`,
          'editorial',
          `${part} definition now ${n} (was ${o}); the structures are compared under ${n}`,
        ),
      );
      const ctx: CompareContext = { old, new: next, subject: n, findings, visited: new Set([`${o}→${n}`]) };
      compareNode(
        ctx,
        old.defs[o] as JsonObject | undefined,
        next.defs[n] as JsonObject | undefined,
        `/$defs/${n}`,
      );
    }
  }
  for (const [name, m] of old.methods) {
    if (next.methods.has(name)) continue;
    findings.push(
      finding(
        m,
        'method-removed',
        'narrow',
        m.kind === 'request'
          ? 'method removed: callers built on the old schema get -32601 (method not found)'
          : 'notification removed: new receivers drop what old senders send',
      ),
    );
  }
}
