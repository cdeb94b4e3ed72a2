import type { JsonObject } from '../json.js';
import { brief, canonicalJson, jsonEqual } from './canonical.js';
import { add, type CompareContext, child } from './compare-context.js';
import { covers, LOWER_BOUNDS, typesOf, UPPER_BOUNDS, valueTypes } from './node-shape.js';

export function compareTypes(ctx: CompareContext, o: JsonObject, n: JsonObject, ptr: string): void {
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

export function compareEnum(
  ctx: CompareContext,
  o: JsonObject,
  n: JsonObject,
  ptr: string,
  open: boolean,
): void {
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

export function compareConst(
  ctx: CompareContext,
  o: JsonObject,
  n: JsonObject,
  ptr: string,
  open: boolean,
): void {
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

export function compareBounds(ctx: CompareContext, o: JsonObject, n: JsonObject, ptr: string): void {
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
