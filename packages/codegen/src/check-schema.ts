import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { type JsonObject, isJsonObject, pointerOf } from './json.js';
import { createStrictAjv } from './load/ajv.js';
import { displayPath } from './load/display-path.js';
import { type LoadedSchema, inspectSchema, readJsonFile } from './load/load-schema.js';
import { diagnose } from './diagnose.js';
import { VALIDATOR_SCHEMA_ID, validatorSchema } from './emit/validator-schema.js';
import { buildModel } from './model/build-model.js';
import { FALLBACK_SCHEMA_ID } from './load/meta-validate.js';
import type { SchemaProblem } from './problems.js';

/** Options of {@link checkSchema}. */
export interface CheckSchemaOptions {
  readonly schemaPath: string;
  /** `examples/<Definition>/<case>.json`: each must validate. */
  readonly examplesDir?: string;
  /** `invalid/<Definition>/<case>.json`: each must be rejected. */
  readonly invalidDir?: string;
}

/** What {@link checkSchema} found. */
export interface CheckSchemaResult {
  readonly problems: readonly SchemaProblem[];
  readonly examplesChecked: number;
  readonly invalidChecked: number;
}

/** One example or invalid-case file. */
export interface CaseFile {
  readonly definition: string;
  readonly path: string;
}

/** Lists `<dir>/<Definition>/<case>.json` files, sorted. */
export function listCases(dir: string): CaseFile[] {
  if (!existsSync(dir)) return [];
  const out: CaseFile[] = [];
  for (const definition of readdirSync(dir).sort()) {
    const defDir = join(dir, definition);
    if (!statSync(defDir).isDirectory()) continue;
    for (const entry of readdirSync(defDir).sort()) {
      if (entry.endsWith('.json')) out.push({ definition, path: join(defDir, entry) });
    }
  }
  return out;
}

/**
 * Compiles the canonical schema as written (plain `oneOf`, no rewriting) and returns a lookup of
 * validators by definition name. This is the reference the generated validators are held to.
 */
export function canonicalValidators(
  schema: JsonObject,
): (definition: string) => ValidateFunction | undefined {
  const ajv = createStrictAjv({ strict: false, allErrors: false });
  const id = typeof schema.$id === 'string' ? schema.$id : FALLBACK_SCHEMA_ID;
  ajv.addSchema({ ...schema, $id: id });
  const defs = isJsonObject(schema.$defs) ? schema.$defs : {};
  return (definition) =>
    Object.hasOwn(defs, definition) ? ajv.getSchema(`${id}#${pointerOf('$defs', definition)}`) : undefined;
}

function checkCases(
  cases: readonly CaseFile[],
  lookup: (definition: string) => ValidateFunction | undefined,
  explainer: (definition: string) => ValidateFunction | undefined,
  mustPass: boolean,
  schemaFile: string,
  out: SchemaProblem[],
): void {
  for (const c of cases) {
    const file = displayPath(c.path);
    const validator = lookup(c.definition);
    if (validator === undefined) {
      out.push({
        file,
        pointer: '',
        message: `folder ${c.definition} names no definition in ${schemaFile}#/$defs`,
      });
      continue;
    }
    const read = readJsonFile(c.path, file);
    if (read.problems.length > 0) {
      out.push(...read.problems);
      continue;
    }
    const ok = validator(read.value);
    if (mustPass && !ok) {
      // The verdict is the canonical schema's; the explanation comes from the switch-form
      // validator, which names the failing variant instead of every branch of every oneOf.
      const explain = explainer(c.definition);
      const errors = explain !== undefined && !explain(read.value) ? explain.errors : validator.errors;
      for (const d of diagnose(errors ?? [])) {
        out.push({
          file,
          pointer: d.pointer,
          message: `${d.message} (against ${schemaFile}#/$defs/${c.definition})`,
        });
      }
    } else if (!mustPass && ok) {
      out.push({
        file,
        pointer: '',
        message: `accepted by ${schemaFile}#/$defs/${c.definition}, but invalid cases must be rejected`,
      });
    }
  }
}

/** Validators compiled from the switch-form schema the generated code uses, for diagnostics. */
function switchFormValidators(loaded: LoadedSchema): (definition: string) => ValidateFunction | undefined {
  const ajv = createStrictAjv({ strict: false, allErrors: false, discriminator: true });
  ajv.addSchema(validatorSchema(buildModel(loaded)));
  return (definition) => {
    try {
      return ajv.getSchema(`${VALIDATOR_SCHEMA_ID}#${pointerOf('$defs', definition)}`);
    } catch {
      return undefined;
    }
  };
}

/** Meta-validation, conventions, every example validates, every invalid case is rejected. */
export function checkSchema(options: CheckSchemaOptions): CheckSchemaResult {
  const { loaded, problems } = inspectSchema(options.schemaPath);
  if (loaded === undefined) return { problems, examplesChecked: 0, invalidChecked: 0 };
  const lookup = canonicalValidators(loaded.schema);
  const examples = options.examplesDir === undefined ? [] : listCases(resolve(options.examplesDir));
  const invalid = options.invalidDir === undefined ? [] : listCases(resolve(options.invalidDir));
  const out: SchemaProblem[] = [];
  const explainer = switchFormValidators(loaded);
  checkCases(examples, lookup, explainer, true, loaded.file, out);
  checkCases(invalid, lookup, explainer, false, loaded.file, out);
  return { problems: out, examplesChecked: examples.length, invalidChecked: invalid.length };
}
