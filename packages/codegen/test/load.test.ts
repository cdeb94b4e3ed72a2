import { describe, expect, it } from 'vitest';
import { inspectSchema } from '../src/load/load-schema.js';
import { SchemaError } from '../src/problems.js';
import { loadSchema } from '../src/load/load-schema.js';
import { MINI_SCHEMA, at, miniSchema, writeTempSchema } from './helpers.js';

function problemsOf(schema: unknown) {
  return inspectSchema(writeTempSchema(schema)).problems;
}

describe('load', () => {
  it('accepts the fixture schema that follows every convention', () => {
    expect(inspectSchema(MINI_SCHEMA).problems).toEqual([]);
  });

  it('reports a meta-schema violation with the JSON pointer of the bad keyword', () => {
    const schema = miniSchema();
    at(schema, '$defs', 'SessionId').type = 'strng';
    const problems = problemsOf(schema);
    expect(problems.map((p) => p.pointer)).toContain('/$defs/SessionId/type');
    expect(problems[0]?.file).toMatch(/schema\.json$/);
  });

  it('reports invalid JSON as a problem of the whole file', () => {
    const path = writeTempSchema('x');
    const problems = inspectSchema(path.replace(/schema\.json$/, 'missing.json')).problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]?.pointer).toBe('');
  });

  it('reports an unknown keyword, which strict mode refuses, at its definition', () => {
    const schema = miniSchema();
    at(schema, '$defs', 'MessageId').minLenght = 1;
    expect(problemsOf(schema).map((p) => p.pointer)).toContain('/$defs/MessageId');
  });

  it('accepts x-unstable: true on a definition and reports any other value', () => {
    const schema = miniSchema();
    at(schema, '$defs', 'MessageId')['x-unstable'] = true;
    expect(problemsOf(schema)).toEqual([]);
    at(schema, '$defs', 'MessageId')['x-unstable'] = 'yes';
    expect(problemsOf(schema)).toContainEqual(
      expect.objectContaining({ pointer: '/$defs/MessageId/x-unstable', message: 'x-unstable must be true' }),
    );
  });

  it('reports a property without a description at the property', () => {
    const schema = miniSchema();
    delete at(schema, '$defs', 'PromptResponse', 'properties', 'messageId').description;
    expect(problemsOf(schema)).toContainEqual(
      expect.objectContaining({ pointer: '/$defs/PromptResponse/properties/messageId' }),
    );
  });

  it('reports a definition without a description', () => {
    const schema = miniSchema();
    delete at(schema, '$defs', 'Meta').description;
    expect(problemsOf(schema)).toContainEqual(expect.objectContaining({ pointer: '/$defs/Meta' }));
  });

  it('reports x-methods that name a missing definition', () => {
    const schema = miniSchema();
    at(schema, 'x-methods', 'session/prompt').result = 'Nope';
    expect(problemsOf(schema)).toContainEqual(
      expect.objectContaining({ pointer: '/x-methods/session~1prompt/result' }),
    );
  });

  it('reports union branches that share a tag value', () => {
    const schema = miniSchema();
    at(schema, '$defs', 'IdleStateUpdate', 'properties', 'state').const = 'running';
    const problems = problemsOf(schema);
    expect(problems).toContainEqual(expect.objectContaining({ pointer: '/$defs/StateUpdate/oneOf/1' }));
    expect(problems.find((p) => p.pointer === '/$defs/StateUpdate/oneOf/1')?.message).toMatch(/disjoint/);
  });

  it('reports a union branch that is not a lone $ref', () => {
    const schema = miniSchema();
    (at(schema, '$defs', 'ContentBlock').oneOf as unknown[])[0] = { type: 'object' };
    expect(problemsOf(schema)).toContainEqual(
      expect.objectContaining({ pointer: '/$defs/ContentBlock/oneOf/0' }),
    );
  });

  it('reports a variant whose tag has neither a const nor the extension pattern', () => {
    const schema = miniSchema();
    at(schema, '$defs', 'TextContent', 'properties', 'type').const = undefined as never;
    delete at(schema, '$defs', 'TextContent', 'properties', 'type').const;
    expect(problemsOf(schema)).toContainEqual(
      expect.objectContaining({ pointer: '/$defs/ContentBlock/oneOf/0' }),
    );
  });

  it('reports an open enum whose known values overlap the extension space', () => {
    const schema = miniSchema();
    ((at(schema, '$defs', 'StopReason').anyOf as unknown[])[0] as { enum: string[] }).enum.push('_custom');
    expect(problemsOf(schema)).toContainEqual(expect.objectContaining({ pointer: '/$defs/StopReason' }));
  });

  it('reports additionalProperties: false, because objects are open', () => {
    const schema = miniSchema();
    at(schema, '$defs', 'PromptResponse').additionalProperties = false;
    expect(problemsOf(schema)).toContainEqual(
      expect.objectContaining({ pointer: '/$defs/PromptResponse/additionalProperties' }),
    );
  });

  it('throws a SchemaError listing every problem when loading for generation', () => {
    const schema = miniSchema();
    delete at(schema, '$defs', 'Meta').description;
    delete at(schema, '$defs', 'SessionId').description;
    const path = writeTempSchema(schema);
    expect(() => loadSchema(path)).toThrow(SchemaError);
    try {
      loadSchema(path);
    } catch (error) {
      expect((error as SchemaError).problems).toHaveLength(2);
      expect((error as SchemaError).message).toContain('#/$defs/SessionId');
    }
  });
});
