import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import v1Schema from '@acp-kit/schema/schema/v1/schema.json' with { type: 'json' };
import v2Schema from '@acp-kit/schema/schema/v2/schema.json' with { type: 'json' };
import { describe, expect, it } from 'vitest';

// ajv-formats is CommonJS: its function is the default export's `default` under NodeNext.
const addFormats = addFormatsModule as unknown as { default: (ajv: Ajv2020) => void };

const repoFile = (path: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../../schema/${path}`, import.meta.url), 'utf8'));

/** A validator of one definition of a schema imported through the package name. */
function definition(schema: { $id: string }, name: string) {
  const ajv = new Ajv2020({ strict: false, allowUnionTypes: true });
  addFormats.default(ajv);
  ajv.addSchema(schema);
  const validate = ajv.getSchema(`${schema.$id}#/$defs/${name}`);
  if (validate === undefined) throw new Error(`no definition ${name} in ${schema.$id}`);
  return validate;
}

describe('the canonical schema files are importable from the package', () => {
  it('imports schema/v2/schema.json by subpath and it is the file in schema/v2', () => {
    expect(v2Schema).toEqual(repoFile('v2/schema.json'));
    expect(v2Schema.$id).toBe('https://acp-kit.dev/schema/v2/schema.json');
  });

  it('imports schema/v1/schema.json by subpath and it is the file in schema/v1', () => {
    expect(v1Schema).toEqual(repoFile('v1/schema.json'));
    expect(v1Schema.$id).toBe('https://acp-kit.dev/schema/v1/schema.json');
  });

  it('keeps the unstable surface inside each file, marked x-unstable', () => {
    const unstable = Object.entries(v2Schema.$defs as Record<string, { 'x-unstable'?: boolean }>)
      .filter(([, d]) => d['x-unstable'] === true)
      .map(([name]) => name);
    expect(unstable.length).toBeGreaterThan(0);
  });

  it('validates a v2 example with Ajv and rejects an invalid case at its pointer', () => {
    const prompt = definition(v2Schema, 'PromptRequest');
    expect(prompt(repoFile('v2/examples/PromptRequest/rfd-capital-of-france.json'))).toBe(true);
    expect(prompt(repoFile('v2/invalid/PromptRequest/text-not-string.json'))).toBe(false);
    expect(prompt.errors?.map((e) => e.instancePath)).toContain('/prompt/0/text');
  });

  it('validates a v1 example with Ajv and rejects a missing sessionId', () => {
    const prompt = definition(v1Schema, 'PromptRequest');
    expect(prompt(repoFile('v1/examples/PromptRequest/basic.json'))).toBe(true);
    expect(prompt(repoFile('v1/invalid/PromptRequest/missing-sessionId.json'))).toBe(false);
    expect(prompt.errors?.[0]?.params).toEqual({ missingProperty: 'sessionId' });
  });
});
