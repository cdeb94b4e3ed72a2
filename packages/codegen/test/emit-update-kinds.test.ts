import { describe, expect, it } from 'vitest';
import { emitUpdateKinds, updateKindTable } from '../src/emit/update-kinds.js';
import type { JsonObject } from '../src/json.js';
import { at, miniSchema, modelOf } from './helpers.js';

/** The mini schema plus an agent_message kind carrying the whole content, and a tool call kind. */
function grownSchema(): JsonObject {
  const schema = miniSchema();
  const defs = at(schema, '$defs');
  defs.AgentMessageUpdate = {
    description: 'A whole agent message.',
    type: 'object',
    required: ['sessionUpdate', 'messageId'],
    properties: {
      sessionUpdate: { description: 'Tag.', const: 'agent_message' },
      messageId: { description: 'The message.', $ref: '#/$defs/MessageId' },
      content: { description: 'Blocks.', type: ['array', 'null'], items: { $ref: '#/$defs/ContentBlock' } },
    },
  };
  defs.ToolCallId = { description: 'A tool call ID.', type: 'string' };
  defs.ToolCallUpdate = {
    description: 'A tool call.',
    type: 'object',
    required: ['sessionUpdate', 'toolCallId'],
    properties: {
      sessionUpdate: { description: 'Tag.', const: 'tool_call_update' },
      toolCallId: { description: 'The call.', $ref: '#/$defs/ToolCallId' },
    },
  };
  const oneOf = at(schema, '$defs', 'SessionUpdate').oneOf as JsonObject[];
  oneOf.splice(0, 0, { $ref: '#/$defs/AgentMessageUpdate' });
  oneOf.splice(oneOf.length - 1, 0, { $ref: '#/$defs/ToolCallUpdate' });
  return schema;
}

describe('update-kind emitter', () => {
  it('lists the known kinds of the session/update union with their ID field, from the schema', () => {
    const table = updateKindTable(modelOf(miniSchema()));
    expect(table?.tag).toBe('sessionUpdate');
    expect(table?.rows.map((r) => [r.kind, r.definition, r.idField, r.chunkOf])).toEqual([
      ['agent_message_chunk', 'AgentMessageChunk', 'messageId', null],
      ['state_update', 'StateUpdate', null, null],
    ]);
  });

  it('follows the schema when it gains kinds: new rows, and the chunk-of relation found by shape', () => {
    const table = updateKindTable(modelOf(grownSchema()));
    expect(table?.rows.map((r) => [r.kind, r.idField, r.chunkOf])).toEqual([
      ['agent_message', 'messageId', null],
      ['agent_message_chunk', 'messageId', 'agent_message'],
      ['state_update', null, null],
      ['tool_call_update', 'toolCallId', null],
    ]);
    const [file] = emitUpdateKinds(modelOf(grownSchema()));
    expect(file?.path).toBe('update-kinds.ts');
    expect(file?.contents).toContain("tool_call_update: {\n    kind: 'tool_call_update',");
    expect(file?.contents).toContain("chunkOf: 'agent_message',");
  });

  it('refuses an x-chunk-of that names no matching kind', () => {
    const schema = grownSchema();
    at(schema, '$defs', 'AgentMessageChunk')['x-chunk-of'] = 'tool_call_update';
    expect(() => updateKindTable(modelOf(schema))).toThrow(/x-chunk-of names "tool_call_update"/);
  });
});
