import { type JsonObject, isJsonObject, pointerOf } from '../json.js';
import { resolveCapabilityPointer } from '../load/capability-pointer.js';
import type { SchemaModel } from '../model/model.js';
import type { SchemaProblem } from '../problems.js';
import type { ConversionModel, UpdateMappingModel } from './compat-mapping-model.js';
import { nameOrNull, optional } from './compat-mapping-rows.js';

/** The tag values of a version's SessionUpdate union. */
export function updateKinds(model: SchemaModel): string[] {
  return model.unions.find((u) => u.name === 'SessionUpdate')?.variants.map((v) => v.tagValue) ?? [];
}

/** Checks the `updates` table: kinds exist, conversions exist, every kind of both versions is listed. */
export function checkUpdateTable(
  mapping: JsonObject,
  file: string,
  v1: SchemaModel,
  v2: SchemaModel,
  conversions: readonly ConversionModel[],
  problems: SchemaProblem[],
): UpdateMappingModel[] {
  if (!Array.isArray(mapping.updates)) return [];
  const kinds = { v1: updateKinds(v1), v2: updateKinds(v2) };
  const out: UpdateMappingModel[] = [];
  mapping.updates.forEach((raw, index) => {
    if (!isJsonObject(raw)) return;
    const problem = (message: string) =>
      problems.push({ file, pointer: pointerOf('updates', index), message });
    const entry: UpdateMappingModel = {
      v1: nameOrNull(raw.v1),
      v2: nameOrNull(raw.v2),
      ...optional(raw, 'conversion'),
      ...optional(raw, 'converterToV1'),
      ...optional(raw, 'converterToV2'),
      ...optional(raw, 'v1Capability'),
      ...(Array.isArray(raw.sentAsV1)
        ? { sentAsV1: raw.sentAsV1.filter((k): k is string => typeof k === 'string') }
        : {}),
      ...optional(raw, 'lossy'),
      ...optional(raw, 'note'),
    };
    for (const kind of entry.sentAsV1 ?? [])
      if (!kinds.v1.includes(kind)) problem(`sentAsV1: v1 session update kind ${kind} does not exist`);
    if (entry.sentAsV1 !== undefined && (entry.v1 !== null || entry.converterToV1 === undefined))
      problem('sentAsV1 belongs on a row without a v1 counterpart that names a converterToV1');
    if (entry.v1Capability !== undefined) {
      const target = resolveCapabilityPointer(
        v1.schema.$defs as JsonObject,
        'ClientCapabilities',
        entry.v1Capability,
      );
      if ('problem' in target) problem(`v1Capability: ${target.problem}`);
    }
    for (const version of ['v1', 'v2'] as const) {
      const kind = entry[version];
      if (kind !== null && !kinds[version].includes(kind))
        problem(`${version} session update kind ${kind} does not exist`);
    }
    if ((entry.v1 === null || entry.v2 === null) && entry.lossy === undefined)
      problem('an update kind without a counterpart needs lossy: why it has none');
    if (entry.conversion !== undefined && !conversions.some((c) => c.name === entry.conversion))
      problem(`conversion ${entry.conversion} does not exist`);
    out.push(entry);
  });
  for (const version of ['v1', 'v2'] as const) {
    for (const kind of kinds[version]) {
      if (!out.some((e) => e[version] === kind))
        problems.push({
          file,
          pointer: '/updates',
          message: `${version} session update kind ${kind} is not listed; add it with its counterpart (or null and why)`,
        });
    }
  }
  return out;
}
