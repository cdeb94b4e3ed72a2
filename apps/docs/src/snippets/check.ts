import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildModel,
  canonicalValidators,
  diagnose,
  type JsonObject,
  loadSchema,
  VALIDATOR_SCHEMA_ID,
  validatorSchema,
} from '@acp-kit/codegen';
import { Ajv2020 } from 'ajv/dist/2020.js';

/** A fenced `json` block as the guides write it: a title naming the definition, optional attributes. */
export interface SnippetInput {
  /** The code fence's meta string, e.g. `title="PromptResponse: receipt" example="PromptResponse/rfd-insertion-receipt"`. */
  readonly meta: string;
  /** The block's body as written (empty for an include). */
  readonly body: string;
}

/** What became of one snippet: the text to show, or why the build must stop. */
export type SnippetOutcome =
  | { readonly ok: true; readonly text: string; readonly meta: string }
  | { readonly ok: false; readonly problem: string };

/** Checks guide snippets against the canonical schemas and resolves example includes. */
export interface SnippetChecker {
  check(snippet: SnippetInput): SnippetOutcome;
}

type Validator = ReturnType<ReturnType<typeof canonicalValidators>>;

interface VersionSchema {
  /** The verdict: the canonical schema as written. */
  readonly lookup: (definition: string) => Validator;
  /** The explanation: the switch-form schema, which names the failing variant instead of every branch. */
  readonly explain: (definition: string) => Validator;
  /** `x-methods` name → params definition. */
  readonly paramsOf: ReadonlyMap<string, string>;
}

/** `key="value"` pairs of a code fence's meta string. */
export function parseMeta(meta: string): Map<string, string> {
  return new Map([...meta.matchAll(/([\w-]+)="([^"]*)"/g)].map((m) => [m[1] ?? '', m[2] ?? '']));
}

/** The meta string without the attributes only this checker understands, so the highlighter never sees them. */
function stripOwnAttributes(meta: string): string {
  return meta.replace(/\s*\b(example|schema|result)="[^"]*"/g, '').trim();
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Creates the checker the remark plugin and the unit tests share. Snippets are checked against
 * `schema/<version>/schema.json` (v2 unless the fence says `schema="v1"`):
 *
 * - `example="<Definition>/<case>"` with an empty body includes `schema/<version>/examples/<Definition>/<case>.json`
 *   — the examples are the only copy, so a body next to `example` is a mistake;
 * - any other block must parse and validate against the definition its title starts with; a
 *   request or notification whose method the schema declares also has its params validated, and a
 *   success response with `result="<Definition>"` its result.
 */
export function createSnippetChecker(repoRoot: string): SnippetChecker {
  const versions = new Map<string, VersionSchema | undefined>();
  const versionSchema = (version: string): VersionSchema | undefined => {
    if (!versions.has(version)) {
      const path = join(repoRoot, 'schema', version, 'schema.json');
      if (!existsSync(path)) {
        versions.set(version, undefined);
      } else {
        const loaded = loadSchema(path);
        const { schema } = loaded;
        const methods = isObject(schema['x-methods']) ? schema['x-methods'] : {};
        const paramsOf = new Map<string, string>();
        for (const [name, info] of Object.entries(methods)) {
          if (isObject(info) && typeof info.params === 'string') paramsOf.set(name, info.params);
        }
        const switchForm = new Ajv2020({
          strict: false,
          allowUnionTypes: true,
          validateFormats: false,
          discriminator: true,
          keywords: ['x-methods', 'x-discriminator', 'x-open-enum'],
        });
        switchForm.addSchema(validatorSchema(buildModel(loaded)));
        const explain = (definition: string): Validator => {
          try {
            return switchForm.getSchema(`${VALIDATOR_SCHEMA_ID}#/$defs/${definition}`);
          } catch {
            return undefined;
          }
        };
        versions.set(version, { lookup: canonicalValidators(schema as JsonObject), explain, paramsOf });
      }
    }
    return versions.get(version);
  };

  const validate = (
    schema: VersionSchema,
    version: string,
    definition: string,
    value: unknown,
    at: string,
  ) => {
    const validator = schema.lookup(definition);
    if (validator === undefined)
      return [`${at}names no definition in schema/${version} ($defs/${definition})`];
    if (validator(value)) return [];
    const explainer = schema.explain(definition);
    const errors = explainer !== undefined && !explainer(value) ? explainer.errors : validator.errors;
    const found = diagnose(errors ?? []);
    return [
      `${at}does not validate against schema/${version} $defs/${definition}: ${found
        .map((d) => `${d.pointer === '' ? '(root)' : d.pointer} ${d.message}`)
        .join('; ')}`,
    ];
  };

  return {
    check({ meta, body }) {
      const attributes = parseMeta(meta);
      const title = attributes.get('title') ?? '';
      const definition = title.split(':')[0]?.trim() ?? '';
      const version = attributes.get('schema') ?? 'v2';
      const label = `json snippet "${title}"`;
      if (definition === '') {
        return {
          ok: false,
          problem: `${label} has no title naming its schema definition ("<Definition>: what it shows")`,
        };
      }
      const schema = versionSchema(version);
      if (schema === undefined)
        return { ok: false, problem: `${label}: schema/${version}/schema.json does not exist` };

      let text = body.trimEnd();
      const example = attributes.get('example');
      if (example !== undefined) {
        if (text.trim() !== '') {
          return {
            ok: false,
            problem: `${label} names example="${example}" and also has a body; the example file is the only copy, so leave the body empty`,
          };
        }
        const file = join(repoRoot, 'schema', version, 'examples', `${example}.json`);
        if (!existsSync(file))
          return {
            ok: false,
            problem: `${label}: schema/${version}/examples/${example}.json does not exist`,
          };
        text = readFileSync(file, 'utf8').trimEnd();
      }

      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        return { ok: false, problem: `${label} is not valid JSON: ${(error as Error).message}` };
      }
      const problems = validate(schema, version, definition, value, `${label} `);
      if (problems.length === 0 && isObject(value)) {
        const params = typeof value.method === 'string' ? schema.paramsOf.get(value.method) : undefined;
        if (params !== undefined && 'params' in value) {
          problems.push(
            ...validate(schema, version, params, value.params, `${label}: params of ${value.method} `),
          );
        }
        const result = attributes.get('result');
        if (result !== undefined) {
          problems.push(...validate(schema, version, result, value.result, `${label}: result `));
        }
      }
      if (problems.length > 0) return { ok: false, problem: problems.join('\n') };
      return { ok: true, text, meta: stripOwnAttributes(meta) };
    },
  };
}
