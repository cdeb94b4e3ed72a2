import { Project } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { emitMethods } from '../src/emit/methods.js';
import { checkConventions } from '../src/load/conventions.js';
import type { JsonObject } from '../src/json.js';
import { at, miniSchema, modelOf } from './helpers.js';

/**
 * The mini schema with `session/request_permission` also sent as a notification the other way,
 * as `mcp/message` is (its params accept exactly what the request's do).
 */
function withNotificationForm(): JsonObject {
  const schema = miniSchema();
  at(schema, 'x-methods', 'session/request_permission').notification = {
    direction: 'client_to_agent',
    params: 'CancelRequestNotification',
    description: 'The same method as a notification from the client.',
  };
  return schema;
}

function methodsFile(schema: JsonObject = miniSchema()) {
  const [file] = emitMethods(modelOf(schema));
  return new Project({ useInMemoryFileSystem: true }).createSourceFile('methods.ts', file!.contents);
}

function keysOf(source: ReturnType<typeof methodsFile>, name: string): string[] {
  return source
    .getInterfaceOrThrow(name)
    .getProperties()
    .map((p) => p.getName().slice(1, -1));
}

describe('methods emitter', () => {
  it('emits a Method constant per method', () => {
    const text = methodsFile().getVariableDeclarationOrThrow('Method').getInitializerOrThrow().getText();
    expect(text).toContain("CancelRequest: '$/cancel_request'");
    expect(text).toContain("SessionPrompt: 'session/prompt'");
  });

  it('lists every method in METHODS, results only for requests', () => {
    const text = methodsFile().getVariableDeclarationOrThrow('METHODS').getInitializerOrThrow().getText();
    expect(text.match(/name: /g)).toHaveLength(4);
    expect(text.match(/result: /g)).toHaveLength(2);
  });

  it('files each method under the receiver that handles it', () => {
    const source = methodsFile();
    expect(keysOf(source, 'AgentRequestMap')).toEqual(['session/prompt']);
    expect(keysOf(source, 'ClientRequestMap')).toEqual(['session/request_permission']);
    expect(keysOf(source, 'AgentNotificationMap')).toEqual(['$/cancel_request']);
    expect(keysOf(source, 'ClientNotificationMap')).toEqual(['session/update', '$/cancel_request']);
  });

  it('types request map entries with params and result definitions', () => {
    const entry = methodsFile().getInterfaceOrThrow('AgentRequestMap').getPropertyOrThrow("'session/prompt'");
    expect(entry.getTypeNode()?.getText()).toBe('{ params: PromptRequest; result: PromptResponse }');
  });

  it("files a request's notification form under the side that receives it, in METHODS too", () => {
    const schema = withNotificationForm();
    expect(checkConventions(schema, 'fixture.json')).toEqual([]);
    const source = methodsFile(schema);
    expect(keysOf(source, 'ClientRequestMap')).toEqual(['session/request_permission']);
    expect(keysOf(source, 'AgentNotificationMap')).toEqual([
      '$/cancel_request',
      'session/request_permission',
    ]);
    expect(keysOf(source, 'ClientNotificationMap')).toEqual(['session/update', '$/cancel_request']);
    const table = source.getVariableDeclarationOrThrow('METHODS').getInitializerOrThrow().getText();
    expect(table).toContain(
      "notification: {\n      direction: 'client_to_agent',\n      params: 'CancelRequestNotification',",
    );
  });

  it('refuses a notification form without a valid direction, or with params that accept something else', () => {
    const sideways = withNotificationForm();
    at(sideways, 'x-methods', 'session/request_permission', 'notification').direction = 'sideways';
    expect(checkConventions(sideways, 'fixture.json').map((p) => p.pointer)).toEqual([
      '/x-methods/session~1request_permission/notification/direction',
    ]);
    const otherShape = withNotificationForm();
    at(otherShape, 'x-methods', 'session/request_permission', 'notification').params = 'PromptRequest';
    expect(checkConventions(otherShape, 'fixture.json')).toEqual([
      {
        file: 'fixture.json',
        pointer: '/x-methods/session~1request_permission/notification/params',
        message:
          'PromptRequest must accept exactly what CancelRequestNotification accepts (params are validated by wire name)',
      },
    ]);
  });
});
