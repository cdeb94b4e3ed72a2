import { Project } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { emitValidateWrapper } from '../src/emit/validate-wrapper.js';
import type { JsonObject } from '../src/json.js';
import { miniSchema, modelOf } from './helpers.js';

function validateParamsText(schema: JsonObject = miniSchema()): string {
  const [file] = emitValidateWrapper(modelOf(schema), { runtimeModule: '../validation-runtime.js' });
  return new Project({ useInMemoryFileSystem: true })
    .createSourceFile('validate.ts', file!.contents)
    .getFunctionOrThrow('validateParams')
    .getBodyText()!;
}

describe('validate wrapper emitter', () => {
  it('checks session/update params by a direct call to their check, ahead of the method table', () => {
    const body = validateParamsText();
    const branch = body.indexOf("if (method === 'session/update')");
    expect(branch).toBeGreaterThanOrEqual(0);
    expect(branch).toBeLessThan(body.indexOf('PARAMS.get(method)'));
    expect(body).toContain(
      'return checks.SessionNotification(params) ? { ok: true, value: params } : runValidator<unknown>(VALIDATORS.SessionNotification, params);',
    );
  });

  it('reads omitted session/update params as {} in the branch when the schema makes them optional', () => {
    const schema = miniSchema();
    const defs = schema.$defs as Record<string, JsonObject>;
    defs.SessionNotification!.required = [];
    const body = validateParamsText(schema);
    expect(body).toContain('const value = params === undefined ? {} : params;');
    expect(body).toContain('checks.SessionNotification(value) ? { ok: true, value: value }');
  });

  it('emits no branch for a schema without session/update', () => {
    const schema = miniSchema();
    delete (schema['x-methods'] as Record<string, unknown>)['session/update'];
    const body = validateParamsText(schema);
    expect(body).not.toContain('session/update');
    expect(body.trimStart().startsWith('const definition = PARAMS.get(method);')).toBe(true);
  });
});
