import { type JsonObject, isJsonObject } from '../json.js';
import { jsonEqual } from './canonical.js';
import { add, type CompareContext, child } from './compare-context.js';
import { compareNode } from './compare-nodes.js';

function requiredOf(node: JsonObject): Set<string> {
  return new Set(
    Array.isArray(node.required) ? node.required.filter((r): r is string => typeof r === 'string') : [],
  );
}

export function compareProperties(ctx: CompareContext, o: JsonObject, n: JsonObject, ptr: string): void {
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

export function compareItems(ctx: CompareContext, o: JsonObject, n: JsonObject, ptr: string): void {
  if (o.items !== undefined || n.items !== undefined)
    compareNode(ctx, o.items ?? true, n.items ?? true, child(ptr, 'items'));
  const opi = Array.isArray(o.prefixItems) ? o.prefixItems : [];
  const npi = Array.isArray(n.prefixItems) ? n.prefixItems : [];
  for (let i = 0; i < Math.max(opi.length, npi.length); i += 1)
    compareNode(ctx, opi[i] ?? true, npi[i] ?? true, child(ptr, 'prefixItems', i));
}
