import { pointerOf } from '../json.js';
import type { SchemaModel } from '../model/model.js';
import type { SchemaProblem } from '../problems.js';
import type { CompatDirection, ConversionModel, UpdateMappingModel } from './compat-mapping-model.js';
import { updateKinds } from './compat-update-table.js';

/** The definition of one kind of a version's SessionUpdate union. */
function updateDefinition(model: SchemaModel, kind: string): string | undefined {
  return model.unions.find((u) => u.name === 'SessionUpdate')?.variants.find((v) => v.tagValue === kind)
    ?.definition;
}

/** How one kind of one version reaches the other version (either direction's model, before naming). */
export interface UpdateRoute {
  /** The kind of the source version. */
  readonly from: string;
  /** The kinds of the other version it may become. */
  readonly to: readonly string[];
  readonly converter?: string;
  readonly conversion?: string;
  readonly v1Capability?: string;
  readonly lossy?: string;
}

/**
 * How each kind of the source version reaches the other (`toV1`: every v2 kind; `toV2`: every v1
 * kind), from the update table: its hand-written converter (`converterToV1` / `converterToV2`;
 * every row of the kind names the same one), else the conversion of its one row with a
 * counterpart (which must convert in that direction between the two update variants), else — no
 * counterpart — a loss with the row's lossy text. A kind that becomes several kinds, or a
 * counterpart without a conversion, needs a converter: anything else is a problem, so no kind is
 * ever dropped without a word. Only v2 → v1 has client capabilities (`v1Capability`) and kinds sent
 * as others (`sentAsV1`).
 */
export function updateRoutes(
  direction: CompatDirection,
  updates: readonly UpdateMappingModel[],
  file: string,
  models: { readonly v1: SchemaModel; readonly v2: SchemaModel },
  conversions: readonly ConversionModel[],
  problems: SchemaProblem[],
): UpdateRoute[] {
  if (updates.length === 0) return [];
  const [from, to] = direction === 'toV1' ? (['v2', 'v1'] as const) : (['v1', 'v2'] as const);
  const converterKey = direction === 'toV1' ? 'converterToV1' : 'converterToV2';
  const out: UpdateRoute[] = [];
  for (const kind of updateKinds(models[from])) {
    const rows = updates.filter((u) => u[from] === kind);
    const index = updates.findIndex((u) => u[from] === kind);
    const problem = (message: string) =>
      problems.push({
        file,
        pointer: pointerOf('updates', index),
        message: `${from} kind ${kind}: ${message}`,
      });
    if (rows.length === 0) continue; // reported by checkUpdateTable
    const targets = [
      ...new Set(
        rows.flatMap((r) => {
          const target = r[to];
          if (target !== null) return [target];
          return direction === 'toV1' ? (r.sentAsV1 ?? []) : [];
        }),
      ),
    ];
    const converters = [...new Set(rows.map((r) => r[converterKey]).filter((c) => c !== undefined))];
    const capabilities =
      direction === 'toV1'
        ? [...new Set(rows.map((r) => r.v1Capability).filter((c) => c !== undefined))]
        : [];
    if (converters.length > 1) problem(`its rows name different ${converterKey}s (${converters.join(', ')})`);
    if (capabilities.length > 1)
      problem(`its rows name different v1Capabilities (${capabilities.join(', ')})`);
    if (rows.some((r) => r[converterKey] === undefined) && converters.length > 0)
      problem(`every row of a kind with a ${converterKey} names it`);
    const base = {
      from: kind,
      to: targets,
      ...(capabilities[0] === undefined ? {} : { v1Capability: capabilities[0] }),
    };
    if (converters[0] !== undefined) {
      out.push({ ...base, converter: converters[0] });
      continue;
    }
    if (rows.every((r) => r[to] === null)) {
      out.push({ ...base, lossy: rows.find((r) => r.lossy !== undefined)?.lossy ?? '' });
      continue;
    }
    const row = rows.find((r) => r[to] !== null);
    const conversion = conversions.find((c) => c.name === row?.conversion);
    if (targets.length > 1 || row === undefined || conversion === undefined) {
      problem(
        targets.length > 1
          ? `it becomes ${targets.join(' or ')} in ${to}: name a ${converterKey} that decides`
          : `its ${to} counterpart has no conversion: give one, or name a ${converterKey}`,
      );
      continue;
    }
    const d1 = updateDefinition(models.v1, (direction === 'toV1' ? row.v1 : kind) ?? '');
    const d2 = updateDefinition(models.v2, (direction === 'toV1' ? kind : row.v2) ?? '');
    const [source, target] = direction === 'toV1' ? [d2, d1] : [d1, d2];
    if (!conversion.directions.includes(direction) || conversion.v1 !== d1 || conversion.v2 !== d2) {
      problem(
        `conversion ${conversion.name} must convert ${from} ${String(source)} into ${to} ${String(target)} (${direction}), or name a ${converterKey}`,
      );
      continue;
    }
    out.push({ ...base, conversion: conversion.name });
  }
  return out;
}
