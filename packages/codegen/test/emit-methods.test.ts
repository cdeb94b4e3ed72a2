import { Project } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { emitMethods } from '../src/emit/methods.js';
import { miniSchema, modelOf } from './helpers.js';

function methodsFile() {
  const [file] = emitMethods(modelOf(miniSchema()));
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
});
