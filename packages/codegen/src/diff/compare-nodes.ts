import { type JsonObject, type JsonValue, defNameOfRef, escapePointerToken } from '../json.js';
import { jsonEqual } from './canonical.js';
import { add, type CompareContext, child, type NodeOptions } from './compare-context.js';
import { compareItems, compareProperties } from './compare-objects.js';
import { compareSingleWithUnion, compareUnion } from './compare-unions.js';
import { compareBounds, compareConst, compareEnum, compareTypes } from './compare-values.js';
import {
  ANNOTATIONS,
  HANDLED_ELSEWHERE,
  isUnconstrained,
  normalize,
  resolveShallow,
  STRUCTURAL,
  splitNull,
} from './node-shape.js';

export type { CompareContext } from './compare-context.js';

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
