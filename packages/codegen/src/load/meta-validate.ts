import type { ErrorObject } from 'ajv';
import { type JsonObject, isJsonObject, pointerOf } from '../json.js';
import type { SchemaProblem } from '../problems.js';
import { createStrictAjv } from './ajv.js';

/** The `$id` used when a schema has none, so its definitions can still be addressed. */
export const FALLBACK_SCHEMA_ID = 'urn:acp-kit:schema';

function metaProblem(file: string, error: ErrorObject): SchemaProblem {
  const where = error.keyword === 'required' ? `${error.instancePath}` : error.instancePath;
  return {
    file,
    pointer: where,
    message: `${error.message ?? 'is invalid'} (meta-schema ${error.schemaPath})`,
  };
}

/**
 * Checks a schema against the draft 2020-12 meta-schema, then compiles every definition in
 * strict mode, which catches what the meta-schema allows but Ajv refuses (unknown keywords,
 * missing types, unresolvable references).
 */
export function metaValidate(schema: unknown, file: string): SchemaProblem[] {
  const ajv = createStrictAjv();
  if (!ajv.validateSchema(schema as JsonObject)) {
    return (ajv.errors ?? []).map((e) => metaProblem(file, e));
  }
  if (!isJsonObject(schema)) return [{ file, pointer: '', message: 'a schema file must hold a JSON object' }];
  const id = typeof schema.$id === 'string' ? schema.$id : FALLBACK_SCHEMA_ID;
  const problems: SchemaProblem[] = [];
  try {
    ajv.addSchema({ ...schema, $id: id });
  } catch (error) {
    return [{ file, pointer: '', message: (error as Error).message }];
  }
  const defs = isJsonObject(schema.$defs) ? Object.keys(schema.$defs) : [];
  for (const name of defs) {
    try {
      ajv.getSchema(`${id}#${pointerOf('$defs', name)}`);
    } catch (error) {
      problems.push({ file, pointer: pointerOf('$defs', name), message: (error as Error).message });
    }
  }
  return problems;
}
