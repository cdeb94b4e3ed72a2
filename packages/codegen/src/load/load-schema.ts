import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type JsonObject, isJsonObject } from '../json.js';
import { SchemaError, type SchemaProblem } from '../problems.js';
import { checkConventions } from './conventions.js';
import { displayPath } from './display-path.js';
import { metaValidate } from './meta-validate.js';

/** A schema that was read, meta-validated and found to follow our conventions. */
export interface LoadedSchema {
  /** Absolute path of the schema file. */
  readonly path: string;
  /** The path shown in problems and in generated headers (e.g. `schema/v2/schema.json`). */
  readonly file: string;
  /** The parsed schema, untouched. */
  readonly schema: JsonObject;
}

/** Reads a JSON file, turning syntax errors into a problem located at the whole document. */
export function readJsonFile(
  path: string,
  file = displayPath(path),
): { value?: unknown; problems: SchemaProblem[] } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return { problems: [{ file, pointer: '', message: `cannot read file: ${(error as Error).message}` }] };
  }
  try {
    return { value: JSON.parse(text) as unknown, problems: [] };
  } catch (error) {
    return { problems: [{ file, pointer: '', message: `not valid JSON: ${(error as Error).message}` }] };
  }
}

/** Finds every problem in a schema file without throwing: JSON syntax, meta-schema, strict mode, conventions. */
export function inspectSchema(path: string): { loaded?: LoadedSchema; problems: SchemaProblem[] } {
  const absolute = resolve(path);
  const file = displayPath(absolute);
  const read = readJsonFile(absolute, file);
  if (read.problems.length > 0) return { problems: read.problems };
  const meta = metaValidate(read.value, file);
  if (meta.length > 0 || !isJsonObject(read.value)) return { problems: meta };
  const conventions = checkConventions(read.value, file);
  if (conventions.length > 0) return { problems: conventions };
  return { loaded: { path: absolute, file, schema: read.value }, problems: [] };
}

/** Loads a schema for code generation; throws a {@link SchemaError} listing every problem. */
export function loadSchema(path: string): LoadedSchema {
  const { loaded, problems } = inspectSchema(path);
  if (loaded === undefined) throw new SchemaError(problems);
  return loaded;
}
