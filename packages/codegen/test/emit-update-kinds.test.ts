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

  it('finds what a chunk appends to by shape (any array property of its block), and says whether the whole kind clears alone', () => {
    const schema = grownSchema();
    const defs = at(schema, '$defs');
    defs.ReportId = { description: 'A report ID.', type: 'string' };
    defs.ReportUpdate = {
      description: 'A report.',
      type: 'object',
      required: ['sessionUpdate', 'reportId', 'status'],
      properties: {
        sessionUpdate: { description: 'Tag.', const: 'report_update' },
        reportId: { description: 'The report.', $ref: '#/$defs/ReportId' },
        status: { description: 'Where it is.', type: 'string' },
        summary: { description: 'Blocks.', type: ['array', 'null'], items: { $ref: '#/$defs/ContentBlock' } },
      },
    };
    defs.ReportSummaryChunk = {
      description: 'Appends to a report.',
      type: 'object',
      required: ['sessionUpdate', 'reportId', 'content'],
      properties: {
        sessionUpdate: { description: 'Tag.', const: 'report_summary_chunk' },
        reportId: { description: 'The report.', $ref: '#/$defs/ReportId' },
        content: { description: 'A block.', $ref: '#/$defs/ContentBlock' },
      },
    };
    const oneOf = at(schema, '$defs', 'SessionUpdate').oneOf as JsonObject[];
    oneOf.splice(
      oneOf.length - 1,
      0,
      { $ref: '#/$defs/ReportUpdate' },
      { $ref: '#/$defs/ReportSummaryChunk' },
    );
    const rows = updateKindTable(modelOf(schema))?.rows ?? [];
    expect(rows.map((r) => [r.kind, r.chunkOf, r.chunk, r.appendsTo, r.clearsAlone])).toEqual([
      ['agent_message', null, 'agent_message_chunk', 'content', true],
      ['agent_message_chunk', 'agent_message', null, 'content', false],
      ['state_update', null, null, null, false],
      ['tool_call_update', null, null, null, false],
      ['report_update', null, 'report_summary_chunk', 'summary', false],
      ['report_summary_chunk', 'report_update', null, 'summary', false],
    ]);
  });

  it('takes the whole kind and its property from x-chunk-of and x-appends-to when the shapes differ', () => {
    const schema = grownSchema();
    at(schema, '$defs', 'ToolCallUpdate', 'properties').output = { description: 'Text.', type: 'string' };
    at(schema, '$defs').ToolCallOutputChunk = {
      description: 'Appends output to a tool call.',
      'x-chunk-of': 'tool_call_update',
      'x-appends-to': 'output',
      type: 'object',
      required: ['sessionUpdate', 'toolCallId', 'data'],
      properties: {
        sessionUpdate: { description: 'Tag.', const: 'tool_call_output_chunk' },
        toolCallId: { description: 'The call.', $ref: '#/$defs/ToolCallId' },
        data: { description: 'Text to append.', type: 'string' },
      },
    };
    const oneOf = at(schema, '$defs', 'SessionUpdate').oneOf as JsonObject[];
    oneOf.splice(oneOf.length - 1, 0, { $ref: '#/$defs/ToolCallOutputChunk' });
    const rows = updateKindTable(modelOf(schema))?.rows ?? [];
    expect(
      rows
        .filter((r) => r.kind.startsWith('tool_call'))
        .map((r) => [r.kind, r.chunkOf, r.chunk, r.appendsTo, r.clearsAlone]),
    ).toEqual([
      ['tool_call_update', null, 'tool_call_output_chunk', 'output', true],
      ['tool_call_output_chunk', 'tool_call_update', null, 'output', false],
    ]);
    at(schema, '$defs', 'ToolCallOutputChunk')['x-appends-to'] = 'missing';
    expect(() => updateKindTable(modelOf(schema))).toThrow(/x-chunk-of names "tool_call_update"/);
  });

  it('refuses an x-chunk-of that names no matching kind', () => {
    const schema = grownSchema();
    at(schema, '$defs', 'AgentMessageChunk')['x-chunk-of'] = 'tool_call_update';
    expect(() => updateKindTable(modelOf(schema))).toThrow(/x-chunk-of names "tool_call_update"/);
  });
});
