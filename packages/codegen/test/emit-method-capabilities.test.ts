import { Project } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { emitMethodCapabilities } from '../src/emit/method-capabilities.js';
import type { JsonObject } from '../src/json.js';
import { checkConventions } from '../src/load/conventions.js';
import { at, miniSchema, modelOf } from './helpers.js';

/** The mini schema plus `initialize`, whose result advertises `capabilities.session.fork`, and `session/fork` gated by it. */
function gatedSchema(): JsonObject {
  const schema = miniSchema();
  const defs = at(schema, '$defs');
  defs.InitializeRequest = { description: 'Opens a connection.', type: 'object', properties: {} };
  defs.ForkCapabilities = { description: 'Fork support.', type: 'object', properties: {} };
  defs.SessionCapabilities = {
    description: 'Session features.',
    type: 'object',
    properties: {
      fork: { description: 'Forking.', anyOf: [{ $ref: '#/$defs/ForkCapabilities' }, { type: 'null' }] },
    },
  };
  defs.AgentCapabilities = {
    description: 'Agent features.',
    type: 'object',
    properties: {
      session: {
        description: 'Sessions.',
        anyOf: [{ $ref: '#/$defs/SessionCapabilities' }, { type: 'null' }],
      },
    },
  };
  defs.InitializeResponse = {
    description: 'The agent answers.',
    type: 'object',
    properties: { capabilities: { description: 'What it does.', $ref: '#/$defs/AgentCapabilities' } },
  };
  const methods = at(schema, 'x-methods');
  const entries = Object.entries(methods);
  for (const key of Object.keys(methods)) delete methods[key];
  methods.initialize = {
    direction: 'client_to_agent',
    kind: 'request',
    params: 'InitializeRequest',
    result: 'InitializeResponse',
    description: 'Opens the connection.',
  };
  for (const [key, value] of entries) methods[key] = value;
  methods['session/fork'] = {
    direction: 'client_to_agent',
    kind: 'request',
    params: 'PromptRequest',
    result: 'PromptResponse',
    description: 'Forks a session.',
    capability: {
      in: 'InitializeResponse',
      pointer: '/capabilities/session/fork',
      description: 'Only when the agent advertises session.fork.',
    },
  };
  return schema;
}

function capabilitiesFile(schema: JsonObject) {
  const [file] = emitMethodCapabilities(modelOf(schema));
  expect(file?.path).toBe('method-capabilities.ts');
  return new Project({ useInMemoryFileSystem: true }).createSourceFile(
    'method-capabilities.ts',
    file!.contents,
  );
}

describe('method-capability emitter', () => {
  it('reads the gating capability from x-methods into the model, with the pointer split into a path', () => {
    const fork = modelOf(gatedSchema()).methods.find((m) => m.name === 'session/fork');
    expect(fork?.capability).toEqual({
      in: 'InitializeResponse',
      pointer: '/capabilities/session/fork',
      path: ['capabilities', 'session', 'fork'],
      valueType: 'object',
      atInitialize: true,
      description: 'Only when the agent advertises session.fork.',
    });
    expect(
      modelOf(gatedSchema()).methods.find((m) => m.name === 'session/prompt')?.capability,
    ).toBeUndefined();
  });

  it('emits one row per method: direction, kind, serving side, and the capability or null for baseline', () => {
    const table = capabilitiesFile(gatedSchema())
      .getVariableDeclarationOrThrow('METHOD_CAPABILITIES')
      .getInitializerOrThrow()
      .getText();
    expect(table.match(/^ +method: /gm)).toHaveLength(6);
    expect(table).toContain(
      "'session/fork': {\n    method: 'session/fork',\n    direction: 'client_to_agent',\n    kind: 'request',\n    servedBy: 'agent',\n    capability: {\n      in: 'InitializeResponse',\n      pointer: '/capabilities/session/fork',\n      path: ['capabilities', 'session', 'fork'],\n      valueType: 'object',\n      atInitialize: true,",
    );
    expect(table).toContain(
      "'session/update': {\n    method: 'session/update',\n    direction: 'agent_to_client',\n    kind: 'notification',\n    servedBy: 'client',\n    capability: null,",
    );
    expect(table).toContain("servedBy: 'both',");
    expect(table).toMatch(
      /satisfies \{ readonly \[M in MethodName\]: MethodGate & \{ readonly method: M \} \}$/,
    );
  });

  it('accepts a capability pointer that resolves through $ref and nullable anyOf', () => {
    expect(checkConventions(gatedSchema(), 'fixture.json')).toEqual([]);
  });

  it('names the capability pointer that does not resolve, and the token where it stops', () => {
    const schema = gatedSchema();
    at(schema, 'x-methods', 'session/fork', 'capability').pointer = '/capabilities/session/branch';
    expect(checkConventions(schema, 'fixture.json')).toEqual([
      {
        file: 'fixture.json',
        pointer: '/x-methods/session~1fork/capability/pointer',
        message:
          'pointer /capabilities/session/branch does not resolve: InitializeResponse at /capabilities/session has no property "branch"',
      },
    ]);
  });

  it("refuses a capability advertised on the sender's side of initialize", () => {
    const schema = gatedSchema();
    const capability = at(schema, 'x-methods', 'session/fork', 'capability');
    capability.in = 'InitializeRequest';
    capability.pointer = '/nothing';
    const problems = checkConventions(schema, 'fixture.json').map((p) => p.pointer);
    expect(problems).toEqual([
      '/x-methods/session~1fork/capability/pointer',
      '/x-methods/session~1fork/capability/in',
    ]);
  });

  it('refuses a capability without a description, or on a method sent both ways', () => {
    const schema = gatedSchema();
    at(schema, 'x-methods', '$/cancel_request').capability = {
      in: 'InitializeResponse',
      pointer: '/capabilities',
    };
    expect(checkConventions(schema, 'fixture.json').map((p) => p.message)).toEqual([
      "a method sent in both directions cannot be gated by one side's capability",
      'capability has no description',
    ]);
  });
});
