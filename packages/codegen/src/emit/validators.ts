import standaloneModule from 'ajv/dist/standalone/index.js';
import { createStrictAjv } from '../load/ajv.js';
import { pointerOf } from '../json.js';
import type { SchemaModel } from '../model/model.js';
import { type EmittedFile, generatedHeader } from './emitted-file.js';
import { VALIDATOR_SCHEMA_ID, validatorSchema } from './validator-schema.js';

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

/** Whether any definition uses `unevaluated*`, which is the only reason to pay for Ajv's evaluation tracking. */
function usesUnevaluated(model: SchemaModel): boolean {
  const text = JSON.stringify(model.schema);
  return text.includes('"unevaluatedProperties"') || text.includes('"unevaluatedItems"');
}

/**
 * Emits `validators.ts`: Ajv standalone ESM code with one exported validate function per
 * definition, compiled from the switch-form schema. Type checking is off for this file: it is
 * machine-written JavaScript, typed through the wrapper that imports it.
 */
export function emitValidators(model: SchemaModel): EmittedFile[] {
  const ajv = createStrictAjv({
    allErrors: false,
    discriminator: true,
    unevaluated: usesUnevaluated(model),
    code: { source: true, esm: true, lines: true },
  });
  ajv.addSchema(validatorSchema(model));
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
  return [{ path: 'validators.ts', contents }];
}
