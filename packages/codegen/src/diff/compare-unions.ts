import { type JsonObject, type JsonValue, defNameOfRef, isJsonObject } from '../json.js';
import { canonicalJson } from './canonical.js';
import type { Finding } from './change.js';
import { add, type CompareContext, child, type NodeOptions } from './compare-context.js';
import { compareNode } from './compare-nodes.js';
import { normalize, resolveShallow, typesOf, valueTypes } from './node-shape.js';
import type { SchemaView } from './schema-view.js';

/** One branch of a union, with the key that matches it across versions. */
interface Branch {
  readonly key: string;
  readonly index: number;
  readonly node: JsonValue;
  readonly catchAll: boolean;
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

export function compareUnion(
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

function unionBranches(node: JsonObject): { keyword: string; list: JsonValue[] } {
  const keyword = Array.isArray(node.oneOf) ? 'oneOf' : 'anyOf';
  return { keyword, list: (node[keyword] as JsonValue[] | undefined) ?? [] };
}

/**
 * One schema became a union of alternatives (or the reverse): the single schema is compared with the
 * branch closest to it (fewest breaking findings); the other branches count as added (removed)
 * alternatives, except an open catch-all branch, which takes what the single schema did not constrain.
 */
export function compareSingleWithUnion(
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
