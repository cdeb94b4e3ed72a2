import { Ajv2020 } from 'ajv/dist/2020.js';
import { Project } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { canonicalValidators } from '../src/check-schema.js';
import { emitTypes } from '../src/emit/types.js';
import { VALIDATOR_SCHEMA_ID, validatorSchema } from '../src/emit/validator-schema.js';
import type { JsonObject } from '../src/json.js';
import { checkConventions } from '../src/load/conventions.js';
import { at, miniSchema, modelOf } from './helpers.js';

/**
 * The mini fixture in the v2 form: every union's open branch takes any tag no known branch
 * names, and the open enum takes any string.
 */
function openSchema(): JsonObject {
  const schema = miniSchema();
  at(schema, '$defs', 'ExtensionContent', 'properties').type = {
    description: 'Any other content type.',
    type: 'string',
    not: { enum: ['text'] },
  };
  at(schema, '$defs', 'ExtensionStateUpdate', 'properties').state = {
    description: 'Any other state.',
    type: 'string',
    not: { enum: ['running', 'idle'] },
  };
  at(schema, '$defs', 'ExtensionSessionUpdate', 'properties').sessionUpdate = {
    description: 'Any other update kind.',
    type: 'string',
    not: { enum: ['agent_message_chunk', 'state_update'] },
  };
  (at(schema, '$defs', 'StopReason').anyOf as unknown[])[1] = { type: 'string' };
  return schema;
}

describe('unions and enums that accept unknown values', () => {
  const schema = openSchema();
  const model = modelOf(schema);

  it('pass the conventions and are modelled as accepting unknown values', () => {
    expect(checkConventions(schema, 'open.json')).toEqual([]);
    expect(model.unions.map((u) => [u.name, u.acceptsUnknown])).toEqual([
      ['ContentBlock', true],
      ['SessionUpdate', true],
      ['StateUpdate', true],
    ]);
    expect(model.openEnums[0]?.acceptsUnknown).toBe(true);
  });

  it('are reported when the unknown branch does not exclude exactly the known tags', () => {
    const stale = openSchema();
    at(stale, '$defs', 'ExtensionSessionUpdate', 'properties', 'sessionUpdate').not = {
      enum: ['agent_message_chunk'],
    };
    expect(checkConventions(stale, 'open.json')).toEqual([
      {
        file: 'open.json',
        pointer: '/$defs/SessionUpdate/oneOf/2',
        message:
          'the unknown branch must exclude exactly the known tags [agent_message_chunk, state_update] (it excludes [agent_message_chunk])',
      },
    ]);
  });

  it('validate in switch form exactly as the canonical oneOf does, unknown tags included', () => {
    const canonical = canonicalValidators(schema)('SessionNotification')!;
    const ajv = new Ajv2020({ discriminator: true, strict: false, allowUnionTypes: true });
    ajv.addSchema(validatorSchema(model));
    const rewritten = ajv.getSchema(`${VALIDATOR_SCHEMA_ID}#/$defs/SessionNotification`)!;
    const cases: [unknown, boolean][] = [
      [{ sessionId: 's', update: { sessionUpdate: 'tool_call_update', kind: 'browse' } }, true],
      [{ sessionId: 's', update: { sessionUpdate: '_vendor', x: 1 } }, true],
      [
        {
          sessionId: 's',
          update: { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: 'video' } },
        },
        true,
      ],
      [{ sessionId: 's', update: { sessionUpdate: 'state_update', state: 'paused' } }, true],
      [
        { sessionId: 's', update: { sessionUpdate: 'state_update', state: 'idle', stopReason: 'bored' } },
        true,
      ],
      // A known tag still has to match its own branch.
      [{ sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', messageId: 'm' } }, false],
      [
        {
          sessionId: 's',
          update: { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: 'text' } },
        },
        false,
      ],
      [{ sessionId: 's', update: { sessionUpdate: 7 } }, false],
      [{ sessionId: 's', update: {} }, false],
      [{ sessionId: 's', update: { sessionUpdate: 'state_update', state: 3 } }, false],
    ];
    for (const [value, valid] of cases) {
      expect(canonical(value), JSON.stringify(value)).toBe(valid);
      expect(rewritten(value), JSON.stringify(value)).toBe(valid);
    }
  });

  it('type the unknown branch explicitly and keep a known-only union for building values', async () => {
    const [file] = await emitTypes(model);
    const source = new Project({ useInMemoryFileSystem: true }).createSourceFile('types.ts', file!.contents);
    expect(source.getTypeAliasOrThrow('StopReason').getTypeNode()?.getText()).toBe(
      "'end_turn' | 'max_tokens' | 'cancelled' | UnknownValue",
    );
    expect(source.getTypeAliasOrThrow('UnknownValue').getTypeNode()?.getText()).toBe('string & {}');
    const extension = source.getTypeAliasOrThrow('ExtensionContent').getTypeNode()?.getText() ?? '';
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text is a TypeScript template literal type.
    expect(extension).toContain('type: `_${string}`');
    expect(extension).toMatch(/\| UnknownVariant<\{[^}]*type: string;/);
    expect(source.getTypeAliasOrThrow('KnownSessionUpdate').getTypeNode()?.getText()).toBe(
      'Exclude<SessionUpdate, { readonly [unknownVariant]: true }>',
    );
  });
});

describe('known values emitter', () => {
  it('lists the known values of every open enum and the known tags of every union', async () => {
    const { emitKnownValues } = await import('../src/emit/known-values.js');
    const [file] = emitKnownValues(modelOf(openSchema()));
    expect(file!.path).toBe('known-values.ts');
    expect(file!.contents).toContain("StopReason: ['end_turn', 'max_tokens', 'cancelled'],");
    expect(file!.contents).toContain(
      "SessionUpdate: { tag: 'sessionUpdate', values: ['agent_message_chunk', 'state_update'] },",
    );
  });
});
