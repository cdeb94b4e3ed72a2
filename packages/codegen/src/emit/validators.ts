import standaloneModule from 'ajv/dist/standalone/index.js';
import { Ajv, type Options } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { type JsonObject, type JsonValue, isJsonObject, pointerOf } from '../json.js';
import { ANNOTATION_KEYWORDS } from '../load/ajv.js';
import type { SchemaModel } from '../model/model.js';
import { type EmittedFile, generatedHeader } from './emitted-file.js';
import { emitFastChecks } from './fast-checks.js';
import { VALIDATOR_SCHEMA_ID, lengthLimitsIgnoreSurrogates, validatorSchema } from './validator-schema.js';

type StandaloneCode = (typeof standaloneModule)['default'];
// ajv/dist/standalone is CommonJS with a default export; under NodeNext the import is module.exports.
const standaloneCode: StandaloneCode = standaloneModule.default;

/** Ajv runtime helpers a standalone module may reference via `require("ajv/dist/runtime/<name>")`. */
const AJV_RUNTIME = ['equal', 'ucs2length', 'uri', 'validation_error'] as const;

/**
 * Ajv's standalone code reaches its runtime helpers through `require(...).default`, even in ESM
 * mode. This preamble gives the module a `require` that serves them from static ESM imports, so
 * the helpers resolve from @acp-kit/schema's own ajv dependency, in Node and in bundlers alike.
 */
function runtimePreamble(code: string): string {
  const used = AJV_RUNTIME.filter((name) => code.includes(`require("ajv/dist/runtime/${name}")`));
  if (used.length === 0) return '';
  const lines = used.map((name) => `import ajvRuntime_${name} from 'ajv/dist/runtime/${name}.js';`);
  lines.push('const AJV_RUNTIME = {');
  for (const name of used) lines.push(`  'ajv/dist/runtime/${name}': ajvRuntime_${name},`);
  lines.push('};');
  lines.push('function require(id) {');
  lines.push('  const loaded = AJV_RUNTIME[id];');
  lines.push("  return typeof loaded === 'function' ? { default: loaded } : loaded;");
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

/** Keywords only the draft 2020-12 vocabulary of Ajv understands. */
const DRAFT_2020_ONLY = new Set([
  'prefixItems',
  'unevaluatedProperties',
  'unevaluatedItems',
  '$dynamicRef',
  '$dynamicAnchor',
]);

function usesDraft2020Only(value: JsonValue): boolean {
  if (Array.isArray(value)) return value.some(usesDraft2020Only);
  if (!isJsonObject(value)) return false;
  return Object.entries(value).some(([key, child]) => DRAFT_2020_ONLY.has(key) || usesDraft2020Only(child));
}

/** Ajv warns that its `unicode` option is deprecated; that one warning is expected here and dropped. */
const quietUnicodeDeprecation = {
  log: console.log,
  warn: (...args: unknown[]) => {
    if (!String(args[0]).includes('option unicode')) console.warn(...args);
  },
  error: console.error,
};

/**
 * Ajv's draft 2020-12 class always tracks evaluated properties for `unevaluated*`, which
 * allocates on every union it validates. When no definition needs 2020-only keywords, the
 * default class (draft-07 plus the 2019 additions) compiles the same checks without that cost.
 */
function createEmitterAjv(schema: JsonObject): Ajv2020 | Ajv {
  const options: Options = {
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
    validateFormats: false,
    allErrors: false,
    discriminator: true,
    keywords: [...ANNOTATION_KEYWORDS],
    code: { source: true, esm: true, lines: true },
    // Length limits are counted in code points by a per-string loop; where the schema's limits
    // cannot tell the two counts apart, `string.length` gives the same answer for free.
    ...(lengthLimitsIgnoreSurrogates(schema) ? { unicode: false, logger: quietUnicodeDeprecation } : {}),
  };
  return usesDraft2020Only(schema) ? new Ajv2020(options) : new Ajv({ ...options, next: true });
}

/**
 * Emits `validators.ts`: Ajv standalone ESM code with one exported validate function per
 * definition, compiled from the switch-form schema, which explains why a value is invalid; and
 * beside it `checks.ts`, the allocation-free checks that decide first (see fast-checks.ts).
 * Type checking is off for both files: they are machine-written JavaScript, typed through the
 * wrapper that imports them.
 */
export function emitValidators(model: SchemaModel): EmittedFile[] {
  const schema = validatorSchema(model);
  const ajv = createEmitterAjv(schema);
  ajv.addSchema(schema);
  const exports: Record<string, string> = {};
  for (const def of model.definitions)
    exports[def.name] = `${VALIDATOR_SCHEMA_ID}#${pointerOf('$defs', def.name)}`;
  const code = standaloneCode(ajv, exports);
  const contents = [
    generatedHeader(model),
    '// @ts-nocheck',
    runtimePreamble(code) + code.trimEnd(),
    '',
  ].join('\n');
  return [{ path: 'validators.ts', contents }, ...emitFastChecks(model)];
}
