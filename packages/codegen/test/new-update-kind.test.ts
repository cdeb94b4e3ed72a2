import { Project } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { emitUpdateKinds, updateKindTable } from '../src/emit/update-kinds.js';
import type { JsonObject } from '../src/json.js';
import { at, miniSchema, modelOf } from './helpers.js';

/**
 * A consumer written the way the SDK's store, replay and bridges are: one handler per update kind,
 * typed by the generated table, for the kinds the fixture schema has today.
 */
const CONSUMER = `
import type { UpdateKind, UpdateOfKind } from './update-kinds.js';
export const HANDLERS = {
  agent_message_chunk: (u: UpdateOfKind['agent_message_chunk']) => u.sessionUpdate,
  state_update: (u: UpdateOfKind['state_update']) => u.sessionUpdate,
} satisfies { readonly [K in UpdateKind]: (update: UpdateOfKind[K]) => string };
`;

/** The compiler's errors for the emitted table of `schema`, a types stub and {@link CONSUMER}. */
function compileErrors(schema: JsonObject): string[] {
  const model = modelOf(schema);
  const [table] = emitUpdateKinds(model);
  const bodies = updateKindTable(model)?.rows.map((r) => r.definition) ?? [];
  const types = [
    'export type DefinitionName = string;',
    ...bodies.map((name) => `export interface ${name} { sessionUpdate: string }`),
  ].join('\n');
  const project = new Project({
    useInMemoryFileSystem: true,
    compilerOptions: { strict: true, noEmit: true, module: 99, target: 99, moduleResolution: 100 },
  });
  project.createSourceFile('types.ts', types);
  project.createSourceFile('update-kinds.ts', table?.contents ?? '');
  project.createSourceFile('consumer.ts', CONSUMER);
  return project.getPreEmitDiagnostics().map((d) => {
    const text = d.getMessageText();
    if (typeof text === 'string') return text;
    const lines: string[] = [];
    const walk = (chain: typeof text): void => {
      lines.push(chain.getMessageText());
      for (const next of chain.getNext() ?? []) walk(next);
    };
    walk(text);
    return lines.join('\n');
  });
}

describe('a kind the schema gains', () => {
  it('compiles while every kind of the schema is handled', () => {
    expect(compileErrors(miniSchema())).toEqual([]);
  });

  it('fails to compile where a per-kind table does not handle it yet', () => {
    const schema = miniSchema();
    at(schema, '$defs').PlanRemoved = {
      description: 'A plan removed.',
      type: 'object',
      required: ['sessionUpdate', 'planId'],
      properties: {
        sessionUpdate: { description: 'Tag.', const: 'plan_removed' },
        planId: { description: 'The plan.', type: 'string' },
      },
    };
    const oneOf = at(schema, '$defs', 'SessionUpdate').oneOf as JsonObject[];
    oneOf.splice(oneOf.length - 1, 0, { $ref: '#/$defs/PlanRemoved' });
    const errors = compileErrors(schema);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/Property 'plan_removed' is missing/);
  });
});
