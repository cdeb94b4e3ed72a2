import { type JsonObject, type JsonValue, defNameOfRef, escapePointerToken, isJsonObject } from '../json.js';
import { brief, canonicalJson, jsonEqual } from './canonical.js';
import type { Effect, Finding } from './change.js';
import type { SchemaView } from './schema-view.js';

/** Keywords that only annotate: a change to them is editorial. */
const ANNOTATIONS = new Set([
  'description',
  'title',
  'examples',
  '$comment',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  'markdownDescription',
]);

/** Convention keywords whose meaning the structural rules already cover, or that methods rules report. */
const HANDLED_ELSEWHERE = new Set(['x-discriminator', 'x-open-enum', 'x-method', 'x-side']);

/** Lower bounds: a larger value accepts less. */
const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties', 'minContains'];
/** Upper bounds: a smaller value accepts less. */
const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties', 'maxContains'];

/** Keywords compared by a dedicated rule below; anything else that differs is reported generically. */
const STRUCTURAL = new Set([
  '$ref',
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'unevaluatedProperties',
  'items',
  'prefixItems',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'pattern',
  'format',
  'multipleOf',
  'uniqueItems',
  ...LOWER_BOUNDS,
  ...UPPER_BOUNDS,
]);

/** Where the comparison is, and where findings go. */
export interface CompareContext {
  readonly old: SchemaView;
  readonly new: SchemaView;
  readonly subject: string;
  readonly findings: Finding[];
  /** Pairs of referenced definitions already compared inline (`Old→New`), against cycles. */
  readonly visited: Set<string>;
  /** Set when the subject is a union's unknown branch: its tag's `not` lists the known tags and follows them. */
  readonly unknownTag?: string;
}

interface NodeOptions {
  /** The node is a branch of a union that keeps unknown values: added or removed values still interoperate. */
  readonly open?: boolean;
  /** The node is the root of a definition with our `x-discriminator`. */
  readonly union?: { readonly old?: string; readonly new?: string };
}

function add(ctx: CompareContext, pointer: string, rule: string, effect: Effect, reason: string): void {
  ctx.findings.push({ subject: ctx.subject, subjectKind: 'definition', pointer, rule, effect, reason });
}

function child(pointer: string, ...tokens: (string | number)[]): string {
  return pointer + tokens.map((t) => `/${escapePointerToken(String(t))}`).join('');
}

/** `true`/`false` schemas as objects; a lone `allOf: [X]` (the official schema's way to annotate a `$ref`) merged into its parent. */
function normalize(node: JsonValue | undefined): JsonObject | undefined {
  if (node === undefined) return undefined;
  if (node === true) return {};
  if (node === false) return { not: {} };
  if (!isJsonObject(node)) return {};
  const { allOf, ...rest } = node;
  if (Array.isArray(allOf) && allOf.length === 1 && isJsonObject(allOf[0]) && rest.$ref === undefined) {
    return merge(normalize(allOf[0]) ?? {}, rest);
  }
  return node;
}

/** `over` applied on `base` as an `allOf` would: properties and required lists combine, other keywords from `over`. */
function merge(base: JsonObject, over: JsonObject): JsonObject {
  const merged: JsonObject = { ...base, ...over };
  if (isJsonObject(base.properties) && isJsonObject(over.properties))
    merged.properties = { ...base.properties, ...over.properties };
  if (Array.isArray(base.required) && Array.isArray(over.required))
    merged.required = [...new Set([...base.required, ...over.required])];
  return merged;
}

/** A schema with no assertion keyword: it accepts every value. */
function isUnconstrained(node: JsonObject): boolean {
  return Object.keys(node).every((k) => ANNOTATIONS.has(k) || k.startsWith('x-'));
}

function typesOf(node: JsonObject): Set<string> | undefined {
  if (typeof node.type === 'string') return new Set([node.type]);
  if (Array.isArray(node.type)) return new Set(node.type.filter((t): t is string => typeof t === 'string'));
  return undefined;
}

function covers(types: Set<string>, t: string): boolean {
  return types.has(t) || (t === 'integer' && types.has('number'));
}

function compareTypes(ctx: CompareContext, o: JsonObject, n: JsonObject, ptr: string): void {
  const ot = typesOf(o);
  const nt = typesOf(n);
  if (ot === undefined && nt === undefined) return;
  const at = child(ptr, 'type');
  // A `const` or `enum` implies its values' types: `{const: "a"}` and `{type: "string", const: "a"}` agree.
  const implied = (node: JsonObject, types: Set<string>): boolean => {
    const values = valueTypes(node);
    return values.length > 0 && values.every((t) => covers(types, t));
  };
  if (ot !== undefined && nt === undefined && implied(n, ot)) return;
  if (nt !== undefined && ot === undefined && implied(o, nt)) return;
  if (ot === undefined) {
    add(ctx, at, 'type-added', 'narrow', `now restricted to type ${brief(n.type)}; any type was accepted`);
    return;
  }
  if (nt === undefined) {
    add(ctx, at, 'type-removed', 'widen', `type ${brief(o.type)} no longer enforced: any type is accepted`);
    return;
  }
  const added = [...nt].filter((t) => !covers(ot, t));
  const removed = [...ot].filter((t) => !covers(nt, t));
  if (added.length > 0)
    add(
      ctx,
      at,
      'type-widened',
      'widen',
      `now also accepts type ${added.join(', ')}: old receivers reject it`,
    );
  if (removed.length > 0)
    add(
      ctx,
      at,
      'type-narrowed',
      'narrow',
      `no longer accepts type ${removed.join(', ')}: new receivers reject it`,
    );
}

function compareEnum(ctx: CompareContext, o: JsonObject, n: JsonObject, ptr: string, open: boolean): void {
  const oe = Array.isArray(o.enum) ? o.enum : undefined;
  const ne = Array.isArray(n.enum) ? n.enum : undefined;
  if (oe === undefined && ne === undefined) return;
  const at = child(ptr, 'enum');
  if (oe === undefined) {
    add(ctx, at, 'enum-added', open ? 'additive' : 'narrow', `now limited to ${brief(ne)}`);
    return;
  }
  if (ne === undefined) {
    add(ctx, at, 'enum-removed', open ? 'additive' : 'widen', `no longer limited to ${brief(oe)}`);
    return;
  }
  const oset = new Set(oe.map((v) => canonicalJson(v)));
  const nset = new Set(ne.map((v) => canonicalJson(v)));
  for (const v of ne)
    if (!oset.has(canonicalJson(v)))
      add(
        ctx,
        at,
        'enum-value-added',
        open ? 'additive' : 'widen',
        open
          ? `new value ${brief(v)} in an open enum: old receivers keep it as an unknown value`
          : `new value ${brief(v)} in a closed enum: old receivers reject it`,
      );
  for (const v of oe)
    if (!nset.has(canonicalJson(v)))
      add(
        ctx,
        at,
        'enum-value-removed',
        open ? 'additive' : 'narrow',
        open
          ? `value ${brief(v)} no longer known: new receivers keep it as an unknown value`
          : `value ${brief(v)} removed from a closed enum: new receivers reject what old senders send`,
      );
}

function compareConst(ctx: CompareContext, o: JsonObject, n: JsonObject, ptr: string, open: boolean): void {
  if (!('const' in o) && !('const' in n)) return;
  if (jsonEqual(o.const, n.const)) return;
  const at = child(ptr, 'const');
  if (!('const' in o))
    add(ctx, at, 'const-added', open ? 'additive' : 'narrow', `now fixed to ${brief(n.const)}`);
  else if (!('const' in n))
    add(ctx, at, 'const-removed', open ? 'additive' : 'widen', `no longer fixed to ${brief(o.const)}`);
  else
    add(
      ctx,
      at,
      'const-changed',
      open ? 'additive' : 'both',
      `fixed value changed from ${brief(o.const)} to ${brief(n.const)}`,
    );
}

function compareBounds(ctx: CompareContext, o: JsonObject, n: JsonObject, ptr: string): void {
  for (const [keys, tighterWhenLarger] of [
    [LOWER_BOUNDS, true],
    [UPPER_BOUNDS, false],
  ] as const) {
    for (const key of keys) {
      const ov = typeof o[key] === 'number' ? (o[key] as number) : undefined;
      const nv = typeof n[key] === 'number' ? (n[key] as number) : undefined;
      if (ov === nv) continue;
      const at = child(ptr, key);
      if (ov === undefined) add(ctx, at, 'bound-added', 'narrow', `new bound ${key}: ${nv}`);
      else if (nv === undefined) add(ctx, at, 'bound-removed', 'widen', `bound ${key}: ${ov} removed`);
      else {
        const tighter = tighterWhenLarger ? nv > ov : nv < ov;
        add(
          ctx,
          at,
          tighter ? 'bound-tightened' : 'bound-loosened',
          tighter ? 'narrow' : 'widen',
          `${key} changed from ${ov} to ${nv}`,
        );
      }
    }
  }
  for (const key of ['pattern', 'format', 'multipleOf']) {
    if (jsonEqual(o[key], n[key])) continue;
    const at = child(ptr, key);
    if (o[key] === undefined) add(ctx, at, `${key}-added`, 'narrow', `new ${key} ${brief(n[key])}`);
    else if (n[key] === undefined) add(ctx, at, `${key}-removed`, 'widen', `${key} ${brief(o[key])} removed`);
    else add(ctx, at, `${key}-changed`, 'both', `${key} changed from ${brief(o[key])} to ${brief(n[key])}`);
  }
  if ((o.uniqueItems === true) !== (n.uniqueItems === true))
    add(
      ctx,
      child(ptr, 'uniqueItems'),
      'unique-items',
      n.uniqueItems === true ? 'narrow' : 'widen',
      n.uniqueItems === true ? 'items must now be unique' : 'items no longer need to be unique',
    );
}

function requiredOf(node: JsonObject): Set<string> {
  return new Set(
    Array.isArray(node.required) ? node.required.filter((r): r is string => typeof r === 'string') : [],
  );
}

function compareProperties(ctx: CompareContext, o: JsonObject, n: JsonObject, ptr: string): void {
  const op = isJsonObject(o.properties) ? o.properties : {};
  const np = isJsonObject(n.properties) ? n.properties : {};
  const or = requiredOf(o);
  const nr = requiredOf(n);
  const closedOld = o.additionalProperties === false || o.unevaluatedProperties === false;
  for (const name of Object.keys(np)) {
    const at = child(ptr, 'properties', name);
    if (!(name in op)) {
      if (nr.has(name))
        add(
          ctx,
          at,
          'required-property-added',
          'narrow',
          `new required field ${name}: old senders do not send it`,
        );
      else if (closedOld)
        add(
          ctx,
          at,
          'property-added-closed',
          'widen',
          `new field ${name} in a closed object: old receivers reject it`,
        );
      else
        add(
          ctx,
          at,
          'optional-property-added',
          'additive',
          `new optional field ${name}: old receivers ignore it`,
        );
      continue;
    }
    if (!or.has(name) && nr.has(name))
      add(
        ctx,
        at,
        'property-now-required',
        'narrow',
        `field ${name} is now required: old senders may omit it`,
      );
    if (or.has(name) && !nr.has(name))
      add(
        ctx,
        at,
        'property-now-optional',
        'widen',
        `field ${name} is now optional: old receivers require it`,
      );
    compareNode(ctx, op[name], np[name], at);
  }
  for (const name of Object.keys(op)) {
    if (name in np) continue;
    const at = child(ptr, 'properties', name);
    if (or.has(name) && !nr.has(name))
      add(
        ctx,
        at,
        'required-property-removed',
        'widen',
        `required field ${name} removed: old receivers require it`,
      );
    else if (or.has(name))
      add(
        ctx,
        at,
        'property-schema-removed',
        'widen',
        `field ${name} is still required but no longer constrained`,
      );
    else
      add(
        ctx,
        at,
        'optional-property-removed',
        'additive',
        `optional field ${name} removed: old receivers see it absent, new receivers ignore it`,
      );
  }
  for (const name of nr)
    if (!(name in np) && !or.has(name))
      add(
        ctx,
        child(ptr, 'required'),
        'required-added',
        'narrow',
        `${name} is now required: old senders may omit it`,
      );
  for (const name of or)
    if (!(name in op) && !nr.has(name))
      add(
        ctx,
        child(ptr, 'required'),
        'required-dropped',
        'widen',
        `${name} is no longer required: old receivers require it`,
      );
  for (const key of ['additionalProperties', 'unevaluatedProperties']) {
    const ov = o[key];
    const nv = n[key];
    if (jsonEqual(ov, nv)) continue;
    const at = child(ptr, key);
    if (nv === false)
      add(
        ctx,
        at,
        `${key}-closed`,
        'narrow',
        `object closed (${key}: false): new receivers reject unknown fields`,
      );
    else if (ov === false)
      add(
        ctx,
        at,
        `${key}-opened`,
        'widen',
        `object opened: old receivers reject unknown fields (${key}: false)`,
      );
    else compareNode(ctx, ov ?? true, nv ?? true, at);
  }
}

function compareItems(ctx: CompareContext, o: JsonObject, n: JsonObject, ptr: string): void {
  if (o.items !== undefined || n.items !== undefined)
    compareNode(ctx, o.items ?? true, n.items ?? true, child(ptr, 'items'));
  const opi = Array.isArray(o.prefixItems) ? o.prefixItems : [];
  const npi = Array.isArray(n.prefixItems) ? n.prefixItems : [];
  for (let i = 0; i < Math.max(opi.length, npi.length); i += 1)
    compareNode(ctx, opi[i] ?? true, npi[i] ?? true, child(ptr, 'prefixItems', i));
}

/** One branch of a union, with the key that matches it across versions. */
interface Branch {
  readonly key: string;
  readonly index: number;
  readonly node: JsonValue;
  readonly catchAll: boolean;
}

function resolveShallow(view: SchemaView, node: JsonValue): JsonObject {
  const n = normalize(node) ?? {};
  const name = defNameOfRef(n.$ref);
  if (name === undefined) return n;
  const { $ref: _ref, ...rest } = n;
  return merge(normalize(view.defs[name]) ?? {}, rest);
}

function tagSchema(view: SchemaView, node: JsonValue, tag: string): JsonObject | undefined {
  const resolved = resolveShallow(view, node);
  const props = isJsonObject(resolved.properties) ? resolved.properties : undefined;
  const own = props?.[tag];
  if (isJsonObject(own)) return own;
  // The official schema puts the tag beside an `allOf: [{$ref}]` holding the variant's fields.
  return undefined;
}

/** A tag shared by the branches: our `x-discriminator`, else a property every branch but one fixes with `const`. */
function unionTag(
  view: SchemaView,
  branches: readonly JsonValue[],
  declared: string | undefined,
): string | undefined {
  if (declared !== undefined) return declared;
  const counts = new Map<string, number>();
  for (const b of branches) {
    const resolved = resolveShallow(view, b);
    const props = isJsonObject(resolved.properties) ? resolved.properties : {};
    for (const [k, v] of Object.entries(props))
      if (isJsonObject(v) && 'const' in v) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  let best: string | undefined;
  let bestCount = 0;
  for (const [k, c] of counts)
    if (c > bestCount && c >= Math.max(1, branches.length - 1)) {
      best = k;
      bestCount = c;
    }
  return best;
}

function valueTypes(n: JsonObject): string[] {
  const values = 'const' in n ? [n.const] : Array.isArray(n.enum) ? n.enum : [];
  return values.map((v) => (typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v));
}

/** A branch that takes any value of a type the other branches enumerate: the open end of an enum-like union. */
function isAnyOfType(n: JsonObject, enumerated: Set<string>): boolean {
  const types = typesOf(n);
  if (types?.size !== 1) return false;
  const [t] = [...types];
  const free = ['const', 'enum', 'pattern', 'not', 'properties', 'items', 'anyOf', 'oneOf', '$ref'].every(
    (k) => !(k in n),
  );
  return free && (enumerated.has(t!) || (t === 'number' && enumerated.has('integer')));
}

function branchesOf(
  view: SchemaView,
  list: readonly JsonValue[],
  tag: string | undefined,
  catchAllDef: string | undefined,
): Branch[] {
  const seen = new Map<string, number>();
  const enumerated = new Set(list.flatMap((b) => valueTypes(normalize(b) ?? {})));
  return list.map((node, index) => {
    const n = normalize(node) ?? {};
    const ref = defNameOfRef(n.$ref);
    let key: string;
    let catchAll = false;
    const tagged = tag === undefined ? undefined : tagSchema(view, node, tag);
    if (ref !== undefined && ref === catchAllDef) {
      key = 'unknown';
      catchAll = true;
    } else if (tagged !== undefined && 'const' in tagged) key = `${tag}=${canonicalJson(tagged.const)}`;
    else if (tagged !== undefined) {
      key = 'unknown';
      catchAll = true;
    } else if ('const' in n) key = `const=${canonicalJson(n.const)}`;
    else if (Array.isArray(n.enum)) key = 'enum';
    else if (isAnyOfType(n, enumerated)) {
      key = 'any-value';
      catchAll = true;
    } else if (ref !== undefined) key = `ref=${ref}`;
    else if (typeof n.title === 'string') key = `title=${n.title}`;
    else if (n.type !== undefined) key = `type=${canonicalJson(n.type)}`;
    else key = `index=${index}`;
    const count = seen.get(key) ?? 0;
    seen.set(key, count + 1);
    return { key: count === 0 ? key : `${key}#${count}`, index, node, catchAll };
  });
}

function describeBranch(b: Branch): string {
  return b.key.startsWith('index=') ? `branch ${b.index}` : b.key.replace(/^(ref|title|type|const)=/, '');
}

function compareUnion(
  ctx: CompareContext,
  o: JsonObject,
  n: JsonObject,
  ptr: string,
  options: NodeOptions,
): void {
  const okw = Array.isArray(o.oneOf) ? 'oneOf' : 'anyOf';
  const nkw = Array.isArray(n.oneOf) ? 'oneOf' : 'anyOf';
  const ol = (o[okw] as JsonValue[] | undefined) ?? [];
  const nl = (n[nkw] as JsonValue[] | undefined) ?? [];
  const oldUnion = options.union?.old === undefined ? undefined : ctx.old.unions.get(options.union.old);
  const newUnion = options.union?.new === undefined ? undefined : ctx.new.unions.get(options.union.new);
  const tag = unionTag(ctx.new, nl, newUnion?.tag) ?? unionTag(ctx.old, ol, oldUnion?.tag);
  const ob = branchesOf(ctx.old, ol, tag, oldUnion?.catchAll);
  const nb = branchesOf(ctx.new, nl, tag, newUnion?.catchAll);
  const oldOpen = ob.some((b) => b.catchAll);
  const newOpen = nb.some((b) => b.catchAll);
  const byKey = new Map(ob.map((b) => [b.key, b]));
  const matched = new Set<string>();
  const paired = (b: Branch): boolean =>
    leftOldCount === 1 && leftNewCount === 1 && !b.catchAll && !byKey.has(b.key);
  const leftOldCount = ob.filter((b) => !b.catchAll && !nb.some((x) => x.key === b.key)).length;
  const leftNewCount = nb.filter((b) => !b.catchAll && !byKey.has(b.key)).length;
  for (const b of nb) {
    const at = child(ptr, nkw, b.index);
    const before = byKey.get(b.key);
    if (paired(b)) continue;
    if (before !== undefined) {
      matched.add(b.key);
      if (!b.catchAll) compareNode(ctx, before.node, b.node, at, { open: oldOpen && newOpen });
      continue;
    }
    if (b.catchAll)
      add(
        ctx,
        at,
        'union-opened',
        'widen',
        'now accepts unknown values: old receivers reject values they do not know',
      );
    else if (oldOpen && newOpen)
      add(
        ctx,
        at,
        'union-variant-added-open',
        'additive',
        `new variant ${describeBranch(b)}: old receivers keep it as unknown`,
      );
    else
      add(
        ctx,
        at,
        'union-variant-added',
        'widen',
        `new variant ${describeBranch(b)} in a closed union: old receivers reject it`,
      );
  }
  const leftOld = ob.filter((b) => !matched.has(b.key) && !b.catchAll);
  const leftNew = nb.filter((b) => !byKey.has(b.key) && !b.catchAll);
  if (leftOld.length === 1 && leftNew.length === 1) {
    // One branch replaced by one other (a renamed reference, a reshaped alternative): compare them.
    compareNode(ctx, leftOld[0]!.node, leftNew[0]!.node, child(ptr, nkw, leftNew[0]!.index), {
      open: oldOpen && newOpen,
    });
    matched.add(leftOld[0]!.key);
  }
  for (const b of ob) {
    if (matched.has(b.key)) continue;
    const at = child(ptr, okw, b.index);
    if (b.catchAll)
      add(ctx, at, 'union-closed', 'narrow', 'no longer accepts unknown values: new receivers reject them');
    else if (newOpen)
      add(
        ctx,
        at,
        'union-variant-removed-open',
        'additive',
        `variant ${describeBranch(b)} removed: new receivers keep it as unknown`,
      );
    else
      add(
        ctx,
        at,
        'union-variant-removed',
        'narrow',
        `variant ${describeBranch(b)} removed: new receivers reject it`,
      );
  }
}

function isNull(node: JsonValue): boolean {
  return (
    isJsonObject(node) &&
    node.type === 'null' &&
    Object.keys(node).every((k) => k === 'type' || ANNOTATIONS.has(k))
  );
}

/** A nullable schema split into "null allowed" and the rest: `anyOf: [X, {type: null}]` or `type: [T, "null"]`. */
function splitNull(node: JsonObject): { nullable: boolean; rest: JsonObject } {
  const list = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
  if (list?.length === 2) {
    const inner = isNull(list[1]!) ? list[0] : isNull(list[0]!) ? list[1] : undefined;
    if (inner !== undefined) {
      const { anyOf: _a, oneOf: _o, ...rest } = node;
      return { nullable: true, rest: merge(normalize(inner) ?? {}, rest) };
    }
  }
  const types = typesOf(node);
  if (types?.has('null') && types.size > 1) {
    const remaining = [...types].filter((t) => t !== 'null');
    return { nullable: true, rest: { ...node, type: remaining.length === 1 ? remaining[0]! : remaining } };
  }
  return { nullable: false, rest: node };
}

/** Null allowed or not, whichever way it is spelled; the rest compared without it. */
function compareNullability(ctx: CompareContext, o: JsonObject, n: JsonObject, ptr: string): boolean {
  const os = splitNull(o);
  const ns = splitNull(n);
  if (!os.nullable && !ns.nullable) return false;
  if (ns.nullable && !os.nullable)
    add(ctx, ptr, 'now-nullable', 'widen', 'now accepts null: old receivers reject it');
  if (os.nullable && !ns.nullable)
    add(ctx, ptr, 'no-longer-nullable', 'narrow', 'no longer accepts null: new receivers reject it');
  compareNode(ctx, os.rest, ns.rest, ptr);
  return true;
}

function compareAnnotations(ctx: CompareContext, o: JsonObject, n: JsonObject, ptr: string): void {
  const keys = new Set([...Object.keys(o), ...Object.keys(n)]);
  for (const key of keys) {
    const editorial = ANNOTATIONS.has(key) || (key.startsWith('x-') && !HANDLED_ELSEWHERE.has(key));
    if (!editorial || jsonEqual(o[key], n[key])) continue;
    const what = o[key] === undefined ? 'added' : n[key] === undefined ? 'removed' : 'changed';
    add(ctx, child(ptr, key), `${key}-${what}`, 'editorial', `${key} ${what}`);
  }
}

function compareOthers(ctx: CompareContext, o: JsonObject, n: JsonObject, ptr: string): void {
  const keys = new Set([...Object.keys(o), ...Object.keys(n)]);
  for (const key of keys) {
    if (STRUCTURAL.has(key) || ANNOTATIONS.has(key) || key.startsWith('x-')) continue;
    if (jsonEqual(o[key], n[key])) continue;
    add(
      ctx,
      child(ptr, key),
      'keyword-changed',
      'both',
      `${key} changed (no specific rule: assumed breaking both ways)`,
    );
  }
  if (!jsonEqual(o.not, n.not)) {
    const tagPointer =
      ctx.unknownTag === undefined
        ? undefined
        : child(`/$defs/${escapePointerToken(ctx.subject)}`, 'properties', ctx.unknownTag);
    if (ptr === tagPointer)
      add(
        ctx,
        child(ptr, 'not'),
        'unknown-tags-follow',
        'editorial',
        'the tags excluded from the unknown branch follow the known variants',
      );
    else add(ctx, child(ptr, 'not'), 'not-changed', 'both', '`not` changed: what is excluded differs');
  }
  const oa = Array.isArray(o.allOf) ? o.allOf : [];
  const na = Array.isArray(n.allOf) ? n.allOf : [];
  for (let i = 0; i < Math.max(oa.length, na.length); i += 1)
    compareNode(ctx, oa[i] ?? true, na[i] ?? true, child(ptr, 'allOf', i));
}

function compareRefs(
  ctx: CompareContext,
  o: JsonObject,
  n: JsonObject,
  ptr: string,
): { o: JsonObject; n: JsonObject } | undefined {
  const oref = defNameOfRef(o.$ref);
  const nref = defNameOfRef(n.$ref);
  if (oref === undefined && nref === undefined) return { o, n };
  if (oref === nref) {
    const { $ref: _a, ...or } = o;
    const { $ref: _b, ...nr } = n;
    return { o: or, n: nr };
  }
  const key = `${oref ?? '-'}→${nref ?? '-'}`;
  if (ctx.visited.has(key)) return undefined;
  ctx.visited.add(key);
  if (oref !== undefined && nref !== undefined)
    add(
      ctx,
      child(ptr, '$ref'),
      'ref-changed',
      'editorial',
      `now refers to ${nref} instead of ${oref} (structure compared below)`,
    );
  return {
    o: oref === undefined ? o : resolveShallow(ctx.old, o),
    n: nref === undefined ? n : resolveShallow(ctx.new, n),
  };
}

function unionBranches(node: JsonObject): { keyword: string; list: JsonValue[] } {
  const keyword = Array.isArray(node.oneOf) ? 'oneOf' : 'anyOf';
  return { keyword, list: (node[keyword] as JsonValue[] | undefined) ?? [] };
}

/**
 * One schema became a union of alternatives (or the reverse): the single schema is compared with the
 * branch closest to it (fewest breaking findings); the other branches count as added (removed)
 * alternatives, except an open catch-all branch, which takes what the single schema did not constrain.
 */
function compareSingleWithUnion(
  ctx: CompareContext,
  o: JsonObject,
  n: JsonObject,
  ptr: string,
  toUnion: boolean,
): void {
  const union = toUnion ? n : o;
  const single = toUnion ? o : n;
  const { keyword, list } = unionBranches(union);
  const { anyOf: _a, oneOf: _b, ...shared } = union;
  let best: { index: number; findings: Finding[] } | undefined;
  const view0 = toUnion ? ctx.new : ctx.old;
  const catchAlls = new Set(
    branchesOf(view0, list, unionTag(view0, list, undefined), undefined)
      .filter((b) => b.catchAll)
      .map((b) => b.index),
  );
  list.forEach((branch, index) => {
    if (toUnion && catchAlls.has(index) && catchAlls.size < list.length) return;
    const scratch: CompareContext = { ...ctx, findings: [], visited: new Set(ctx.visited) };
    const merged = { ...shared, ...resolveShallow(toUnion ? ctx.new : ctx.old, branch) };
    compareNode(scratch, toUnion ? single : merged, toUnion ? merged : single, child(ptr, keyword, index));
    const weight = scratch.findings.filter((f) => f.effect !== 'editorial' && f.effect !== 'additive').length;
    const bestWeight = best?.findings.filter(
      (f) => f.effect !== 'editorial' && f.effect !== 'additive',
    ).length;
    if (bestWeight === undefined || weight < bestWeight) best = { index, findings: scratch.findings };
  });
  add(
    ctx,
    ptr,
    toUnion ? 'became-union' : 'became-single',
    'editorial',
    toUnion
      ? `now a union of ${list.length} alternatives; the former schema is compared with alternative ${best?.index ?? 0}`
      : `no longer a union; compared with former alternative ${best?.index ?? 0}`,
  );
  if (best !== undefined) ctx.findings.push(...best.findings);
  const view = toUnion ? ctx.new : ctx.old;
  const tag = unionTag(view, list, undefined);
  for (const b of branchesOf(view, list, tag, undefined)) {
    if (b.index === best?.index || (toUnion && b.catchAll)) continue;
    const at = child(ptr, keyword, b.index);
    // An alternative the single schema already covered (toUnion) or still covers (the reverse) is no new one.
    const scratch: CompareContext = { ...ctx, findings: [], visited: new Set(ctx.visited) };
    const merged = { ...shared, ...resolveShallow(view, b.node) };
    compareNode(scratch, toUnion ? single : merged, toUnion ? merged : single, at);
    const lost = toUnion ? 'widen' : 'narrow';
    if (!scratch.findings.some((f) => f.effect === lost || f.effect === 'both')) {
      ctx.findings.push(...scratch.findings);
      continue;
    }
    if (toUnion)
      add(
        ctx,
        at,
        'union-variant-added',
        'widen',
        `new alternative ${describeBranch(b)}: old receivers reject it`,
      );
    else
      add(
        ctx,
        at,
        'union-variant-removed',
        'narrow',
        `alternative ${describeBranch(b)} removed: new receivers reject it`,
      );
  }
}

/** Compares two subschemas at `ptr` and records every change found. */
export function compareNode(
  ctx: CompareContext,
  oldNode: JsonValue | undefined,
  newNode: JsonValue | undefined,
  ptr: string,
  options: NodeOptions = {},
): void {
  const o0 = normalize(oldNode) ?? {};
  const n0 = normalize(newNode) ?? {};
  if (jsonEqual(o0, n0)) return;
  compareAnnotations(ctx, o0, n0, ptr);
  const refs = compareRefs(ctx, o0, n0, ptr);
  if (refs === undefined) return;
  const { o, n } = refs;
  const oFree = isUnconstrained(o);
  const nFree = isUnconstrained(n);
  if (oFree || nFree) {
    if (oFree && !nFree)
      add(
        ctx,
        ptr,
        'constrained',
        'narrow',
        'any value was accepted; now constrained: new receivers reject some old values',
      );
    if (nFree && !oFree)
      add(ctx, ptr, 'unconstrained', 'widen', 'now accepts any value: old receivers reject some of them');
    return;
  }
  if (compareNullability(ctx, o, n, ptr)) return;
  const open = options.open === true;
  const oUnion = Array.isArray(o.anyOf) || Array.isArray(o.oneOf);
  const nUnion = Array.isArray(n.anyOf) || Array.isArray(n.oneOf);
  if (oUnion && nUnion) compareUnion(ctx, o, n, ptr, options);
  else if (oUnion !== nUnion) {
    compareSingleWithUnion(ctx, o, n, ptr, nUnion);
    return;
  }
  compareTypes(ctx, o, n, ptr);
  compareEnum(ctx, o, n, ptr, open);
  compareConst(ctx, o, n, ptr, open);
  compareBounds(ctx, o, n, ptr);
  compareProperties(ctx, o, n, ptr);
  compareItems(ctx, o, n, ptr);
  compareOthers(ctx, o, n, ptr);
}
