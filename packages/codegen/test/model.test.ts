import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../src/json.js';
import { methodConstName, requiresNoProperty } from '../src/model/build-model.js';
import { miniSchema, modelOf } from './helpers.js';

describe('model', () => {
  const model = modelOf(miniSchema());

  it('keeps every definition in schema order with its description', () => {
    expect(model.definitions.map((d) => d.name).slice(0, 3)).toEqual(['Meta', 'SessionId', 'MessageId']);
    expect(model.definitions.find((d) => d.name === 'PromptResponse')?.properties).toEqual([
      expect.objectContaining({ name: 'messageId', required: true, description: 'The inserted message.' }),
      expect.objectContaining({ name: '_meta', required: false }),
    ]);
  });

  it('models a union with known variants, a nested union and an extension branch', () => {
    const union = model.unions.find((u) => u.name === 'SessionUpdate');
    expect(union).toEqual({
      name: 'SessionUpdate',
      tag: 'sessionUpdate',
      description: 'A session update.',
      variants: [
        { kind: 'known', definition: 'AgentMessageChunk', tagValue: 'agent_message_chunk' },
        { kind: 'union', definition: 'StateUpdate', tagValue: 'state_update' },
      ],
      extension: 'ExtensionSessionUpdate',
      acceptsUnknown: false,
    });
  });

  it('models open enums with their known values', () => {
    expect(model.openEnums).toEqual([
      {
        name: 'StopReason',
        description: 'Why the agent stopped.',
        known: ['end_turn', 'max_tokens', 'cancelled'],
        acceptsUnknown: false,
      },
    ]);
  });

  it('models methods with direction, kind, params, result and a constant name', () => {
    expect(model.methods.find((m) => m.name === 'session/prompt')).toEqual({
      name: 'session/prompt',
      constName: 'SessionPrompt',
      direction: 'client_to_agent',
      kind: 'request',
      params: 'PromptRequest',
      paramsOptional: false,
      result: 'PromptResponse',
      description: 'Sends a user prompt.',
    });
    expect(model.methods.find((m) => m.name === '$/cancel_request')?.result).toBeUndefined();
  });

  it('knows which methods params require no property, following $ref and allOf but not unions', () => {
    const defs: JsonObject = {
      List: { type: 'object', properties: { cursor: { type: 'string' } } },
      Empty: { type: 'object', required: [] },
      Named: { type: 'object', required: ['sessionId'], properties: { sessionId: { type: 'string' } } },
      Alias: { $ref: '#/$defs/List' },
      Both: { allOf: [{ $ref: '#/$defs/List' }, { type: 'object', properties: { x: {} } }] },
      WithNamed: { allOf: [{ $ref: '#/$defs/List' }, { $ref: '#/$defs/Named' }] },
      Union: { oneOf: [{ $ref: '#/$defs/List' }] },
      Loop: { $ref: '#/$defs/Loop' },
      Text: { type: 'string' },
    };
    const verdicts = Object.keys(defs).map((name) => [name, requiresNoProperty(defs, name)]);
    expect(Object.fromEntries(verdicts)).toEqual({
      List: true,
      Empty: true,
      Named: false,
      Alias: true,
      Both: true,
      WithNamed: false,
      Union: false,
      Loop: false,
      Text: false,
    });
  });

  it('derives PascalCase method constants from wire names', () => {
    expect(methodConstName('$/cancel_request')).toBe('CancelRequest');
    expect(methodConstName('session/request_permission')).toBe('SessionRequestPermission');
  });

  it('refuses two methods that map to the same constant', () => {
    const schema = miniSchema();
    const methods = schema['x-methods'] as Record<string, unknown>;
    methods['session.prompt'] = methods['session/prompt'];
    expect(() => modelOf(schema)).toThrow(/SessionPrompt/);
  });
});
