import { dirname, resolve } from 'node:path';
import { type JsonObject, isJsonObject } from '../json.js';
import { createStrictAjv } from '../load/ajv.js';
import { displayPath } from '../load/display-path.js';
import { readJsonFile } from '../load/load-schema.js';
import type { SchemaModel } from '../model/model.js';
import type { SchemaProblem } from '../problems.js';
import { checkConversions } from './compat-conversions.js';
import type { CompatModel, UpdateToV1Model, UpdateToV2Model } from './compat-mapping-model.js';
import { checkMethodTable } from './compat-method-table.js';
import { checkUpdateTable } from './compat-update-table.js';
import { updateRoutes } from './compat-update-routes.js';

/** Reads the mapping file and validates it against the JSON Schema its `$schema` names. */
export function readMapping(path: string): { mapping?: JsonObject; problems: SchemaProblem[] } {
  const file = displayPath(path);
  const read = readJsonFile(path, file);
  if (read.problems.length > 0) return { problems: read.problems };
  if (!isJsonObject(read.value) || typeof read.value.$schema !== 'string') {
    return {
      problems: [{ file, pointer: '/$schema', message: 'the mapping must name its JSON Schema in $schema' }],
    };
  }
  const schemaPath = resolve(dirname(resolve(path)), read.value.$schema);
  const schema = readJsonFile(schemaPath);
  if (schema.problems.length > 0) return { problems: schema.problems };
  const ajv = createStrictAjv();
  const validate = ajv.compile(schema.value as JsonObject);
  if (!validate(read.value)) {
    return {
      problems: (validate.errors ?? []).map((e) => ({
        file,
        pointer:
          e.keyword === 'required'
            ? `${e.instancePath}/${String((e.params as { missingProperty: unknown }).missingProperty)}`
            : e.instancePath,
        message: `${e.message ?? 'is invalid'} (against ${displayPath(schemaPath)}${e.schemaPath.slice(1)})`,
      })),
    };
  }
  return { mapping: read.value, problems: [] };
}

/**
 * Checks a parsed mapping against both schema models and builds the conversion list. Every
 * problem is collected (file + JSON pointer), none is fatal on its own.
 */
export function buildCompatModel(
  mapping: JsonObject,
  file: string,
  v1: SchemaModel,
  v2: SchemaModel,
): { model?: CompatModel; problems: SchemaProblem[] } {
  const problems: SchemaProblem[] = [];
  const conversions = checkConversions(mapping, file, v1, v2, problems);
  const methods = checkMethodTable(mapping, file, v1, v2, conversions, problems);
  const updates = checkUpdateTable(mapping, file, v1, v2, conversions, problems);
  const models = { v1, v2 };
  const updatesToV1: UpdateToV1Model[] = updateRoutes(
    'toV1',
    updates,
    file,
    models,
    conversions,
    problems,
  ).map(({ from, to, ...rest }) => ({ v2: from, v1: to, ...rest }));
  // A row already reported for v2 → v1 is not reported again for v1 → v2: one problem per row.
  const reverse: SchemaProblem[] = [];
  const updatesToV2: UpdateToV2Model[] = updateRoutes(
    'toV2',
    updates,
    file,
    models,
    conversions,
    reverse,
  ).map(({ from, to, v1Capability: _, ...rest }) => ({ v1: from, v2: to, ...rest }));
  problems.push(...reverse.filter((r) => !problems.some((p) => p.pointer === r.pointer)));
  return problems.length > 0
    ? { problems }
    : { model: { source: file, v1, v2, conversions, methods, updates, updatesToV1, updatesToV2 }, problems };
}
