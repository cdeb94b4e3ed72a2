import { type JsonObject, escapePointerToken, isJsonObject } from '../json.js';
import type { Change, DiffReport, Finding, Party, Verdict } from './change.js';
import { compareMethods } from './compare-methods.js';
import { type CompareContext, compareNode } from './compare-nodes.js';
import { type SchemaView, callees, callers, schemaView } from './schema-view.js';

const BOTH: readonly Party[] = ['client', 'agent'];
const VERDICT_ORDER: Record<Verdict, number> = { breaking: 0, additive: 1, editorial: 2 };

function verdictOf(finding: Finding): Verdict {
  if (finding.effect === 'additive') return 'additive';
  if (finding.effect === 'editorial') return 'editorial';
  return 'breaking';
}

function flowText(senders: readonly Party[] | undefined): string {
  if (senders === undefined || senders.length === 0) return 'unknown (no method reaches it)';
  if (senders.length === 2) return 'both ways';
  return senders[0] === 'client' ? 'client → agent' : 'agent → client';
}

function others(parties: readonly Party[]): readonly Party[] {
  return parties.length === 2 ? BOTH : parties[0] === 'client' ? ['agent'] : ['client'];
}

function definitionSenders(old: SchemaView, next: SchemaView, name: string): Party[] | undefined {
  const set = new Set<Party>([...(next.senders.get(name) ?? []), ...(old.senders.get(name) ?? [])]);
  return set.size === 0 ? undefined : BOTH.filter((p) => set.has(p));
}

function toChange(old: SchemaView, next: SchemaView, f: Finding): Change {
  let senders: readonly Party[];
  let receivers: readonly Party[];
  let flow: string;
  if (f.subjectKind === 'method') {
    const m = next.methods.get(f.subject) ?? old.methods.get(f.subject)!;
    senders = callers(m.direction);
    receivers = callees(m.direction);
    flow = flowText(senders);
  } else if (f.subjectKind === 'definition') {
    const found = definitionSenders(old, next, f.subject);
    senders = found ?? BOTH;
    receivers = found === undefined ? BOTH : others(found);
    flow = flowText(found);
  } else {
    senders = BOTH;
    receivers = BOTH;
    flow = 'both ways';
  }
  const widen = f.effect === 'widen' || f.effect === 'both';
  const narrow = f.effect === 'narrow' || f.effect === 'both';
  return {
    ...f,
    verdict: verdictOf(f),
    breaksReceivers: widen ? receivers : [],
    breaksSenders: narrow ? senders : [],
    breaksCode: f.effect === 'api',
    flow,
  };
}

function defPointer(name: string): string {
  return `/$defs/${escapePointerToken(name)}`;
}

/** The tag of the union whose unknown branch `name` is, if it is one. */
function unknownBranchTag(view: SchemaView, name: string): string | undefined {
  for (const u of view.unions.values()) if (u.catchAll === name) return u.tag;
  return undefined;
}

function compareDefinitions(old: SchemaView, next: SchemaView, findings: Finding[]): void {
  for (const [name, def] of Object.entries(next.defs)) {
    const pointer = defPointer(name);
    if (!(name in old.defs)) {
      findings.push({
        subject: name,
        subjectKind: 'definition',
        pointer,
        rule: 'definition-added',
        effect: 'additive',
        reason: `new definition ${name}`,
      });
      continue;
    }
    const unknownTag = unknownBranchTag(old, name) ?? unknownBranchTag(next, name);
    const ctx: CompareContext = {
      old,
      new: next,
      subject: name,
      findings,
      visited: new Set(),
      ...(unknownTag === undefined ? {} : { unknownTag }),
    };
    compareNode(ctx, old.defs[name], def, pointer, { union: { old: name, new: name } });
  }
  for (const name of Object.keys(old.defs)) {
    if (name in next.defs) continue;
    findings.push({
      subject: name,
      subjectKind: 'definition',
      pointer: defPointer(name),
      rule: 'definition-removed',
      effect: 'api',
      reason: `definition ${name} removed: code naming its generated type no longer compiles (wire effects are reported where it was referenced)`,
    });
  }
}

function compareRoot(old: SchemaView, next: SchemaView, findings: Finding[]): void {
  const strip = (schema: JsonObject): JsonObject => {
    const { $defs: _d, 'x-methods': _m, ...rest } = schema;
    return rest;
  };
  const local: Finding[] = [];
  const ctx: CompareContext = { old, new: next, subject: '(schema)', findings: local, visited: new Set() };
  compareNode(ctx, strip(old.schema), strip(next.schema), '');
  for (const f of local) findings.push({ ...f, subjectKind: 'schema' });
}

/** Compares two schemas (already parsed) and classifies every change per party and direction. */
export function diffSchemas(
  oldSchema: { label: string; schema: JsonObject },
  newSchema: { label: string; schema: JsonObject },
): DiffReport {
  const old = schemaView(oldSchema.label, isJsonObject(oldSchema.schema) ? oldSchema.schema : {});
  const next = schemaView(newSchema.label, isJsonObject(newSchema.schema) ? newSchema.schema : {});
  const findings: Finding[] = [];
  compareRoot(old, next, findings);
  compareMethods(old, next, findings);
  compareDefinitions(old, next, findings);
  const seen = new Set<string>();
  const changes = findings
    .map((f) => toChange(old, next, f))
    .filter((c) => {
      const key = `${c.pointer} ${c.rule} ${c.reason}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort(
      (a, b) =>
        VERDICT_ORDER[a.verdict] - VERDICT_ORDER[b.verdict] ||
        (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : 0),
    );
  const count = (v: Verdict): number => changes.filter((c) => c.verdict === v).length;
  return {
    old: old.label,
    new: next.label,
    conventions: { old: old.conventions, new: next.conventions },
    changes,
    summary: { breaking: count('breaking'), additive: count('additive'), editorial: count('editorial') },
  };
}
