import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { compareChecks } from '../src/compare-checks.js';
import { emitFastChecks } from '../src/emit/fast-checks.js';
import { VALIDATOR_SCHEMA_ID, validatorSchema } from '../src/emit/validator-schema.js';
import type { JsonObject } from '../src/json.js';
import { at, miniSchema, modelOf } from './helpers.js';

type Decide = (value: unknown) => boolean;

/** Loads an emitted checks.ts that needs no Ajv fallback: its exports, by definition name. */
function loadChecks(contents: string): Record<string, Decide> {
  const exportAt = contents.lastIndexOf('export {');
  const exported = contents
    .slice(exportAt + 'export {'.length, contents.indexOf('}', exportAt))
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .map((entry) => entry.split(/\s+as\s+/) as [string, string]);
  const body = `${contents.slice(0, exportAt)}\nreturn { ${exported.map(([local, name]) => `${name}: ${local}`).join(', ')} };`;
  return new Function(body)() as Record<string, Decide>;
}

function ajvValidators(schema: JsonObject): Record<string, Decide> {
  const model = modelOf(schema);
  const ajv = new Ajv2020({ discriminator: true, strict: false, allowUnionTypes: true });
  ajv.addSchema(validatorSchema(model));
  return Object.fromEntries(
    model.definitions.map((d) => [d.name, ajv.getSchema(`${VALIDATOR_SCHEMA_ID}#/$defs/${d.name}`)!]),
  );
}

const samples = [
  {
    sessionId: 's',
    update: { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: 'text', text: 'hi' } },
  },
  {
    sessionId: 's',
    update: { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: '_x', any: 1 } },
  },
  { sessionId: 's', update: { sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' } },
  { sessionId: 's', update: { sessionUpdate: 'state_update', state: '_paused' } },
  { sessionId: 's', update: { sessionUpdate: '_vendor', anything: [1, 2] } },
].map((value) => ({ definition: 'SessionNotification', value }));

describe('fast checks', () => {
  it('decide exactly as Ajv on samples, on every definition and every one-step mutation', () => {
    const schema = miniSchema();
    const [file] = emitFastChecks(modelOf(schema));
    const { compared, disagreements } = compareChecks(
      loadChecks(file!.contents),
      ajvValidators(schema),
      samples,
    );
    expect(compared).toBeGreaterThan(500);
    expect(disagreements).toEqual([]);
  });

  it('switch on the tag of a union and check the extension branch in its default case', () => {
    const [file] = emitFastChecks(modelOf(miniSchema()));
    const union = file!.contents.slice(file!.contents.indexOf('function checkSessionUpdate('));
    expect(union).toMatch(/switch \(t\d+\) \{\s+case "agent_message_chunk": \{/);
    expect(union.slice(0, union.indexOf('\n}\n'))).toMatch(
      /default: \{[\s\S]*?if \(!checkExtensionSessionUpdate\(v\)\) return false;/,
    );
    expect(file!.contents).not.toContain('./validators.js');
  });

  it('call the Ajv validator for a definition that uses a keyword they do not compile', () => {
    const schema = miniSchema();
    at(schema, '$defs', 'PromptRequest', 'properties', 'prompt').uniqueItems = true;
    const [file] = emitFastChecks(modelOf(schema));
    expect(file!.contents).toContain("import * as ajv from './validators.js';");
    expect(file!.contents).toMatch(/function checkPromptRequest\(v\) \{\s+return ajv\.PromptRequest\(v\);/);
    expect(file!.contents).toMatch(/function checkPromptResponse\(v\) \{\s+if/);
  });
});
