import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { emitCompatConverters } from '../src/emit/compat-converters.js';
import { emitCompatUpdates } from '../src/emit/compat-updates.js';
import { loadCompat } from '../src/generate.js';
import { SchemaError } from '../src/problems.js';

const SCHEMA = fileURLToPath(new URL('../../../schema/', import.meta.url));
const V1 = join(SCHEMA, 'v1/schema.json');
const V2 = join(SCHEMA, 'v2/schema.json');

/** Writes a mapping next to a copy of the mapping schema and returns its path. */
function tempMapping(conversions: unknown[], tables: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'acp-kit-compat-'));
  copyFileSync(join(SCHEMA, 'compat/mapping.schema.json'), join(dir, 'mapping.schema.json'));
  const path = join(dir, 'mapping.json');
  writeFileSync(path, JSON.stringify({ $schema: './mapping.schema.json', conversions, ...tables }));
  return path;
}

function problemsOf(conversions: unknown[], tables: Record<string, unknown> = {}): string[] {
  try {
    loadCompat({ mappingPath: tempMapping(conversions, tables), v1SchemaPath: V1, v2SchemaPath: V2 });
  } catch (error) {
    if (error instanceof SchemaError) return error.problems.map((p) => `${p.pointer}: ${p.message}`);
    throw error;
  }
  return [];
}

describe('the compat emitter', () => {
  it('compiles the repository mapping into converters for both directions', () => {
    const model = loadCompat({
      mappingPath: join(SCHEMA, 'compat/v1-v2.json'),
      v1SchemaPath: V1,
      v2SchemaPath: V2,
    });
    const [file] = emitCompatConverters(model);
    expect(file?.path).toBe('converters.ts');
    expect(file?.contents).toContain(
      'export function v1ToV2ContentBlock(value: V1.ContentBlock): V2.ContentBlock',
    );
    expect(file?.contents).toContain(
      'export function v2ToV1ContentBlock(value: V2.ContentBlock): V1.ContentBlock',
    );
    expect(file?.contents).toContain("case 'paused':");
  }, 180_000); // loads and emits both whole schemas: over a minute on a loaded 2-core machine

  it('names the entry whose definition does not exist', () => {
    expect(problemsOf([{ name: 'Nope', kind: 'object' }])).toEqual([
      '/conversions/0: v1 definition Nope does not exist in schema/v1/schema.json',
      '/conversions/0: v2 definition Nope does not exist in schema/v2/schema.json',
    ]);
  });

  it('asks for a default when a required target field may be missing', () => {
    expect(
      problemsOf([{ name: 'NewSessionRequest', kind: 'object', drop: { toV1: ['systemPrompt'] } }]),
    ).toEqual([
      '/conversions/0: toV1: target field mcpServers is required but the source may lack it; give defaults.toV1.mcpServers',
    ]);
  });

  it('asks for a value map when a known enum value has no counterpart', () => {
    expect(problemsOf([{ name: 'ToolCallStatus', kind: 'enum' }])).toEqual([
      '/conversions/0: toV1: value "paused" has no counterpart; add values.toV1',
      '/conversions/0: toV1: value "cancelled" has no counterpart; add values.toV1',
    ]);
  });

  it('asks for a conversion of every union variant', () => {
    expect(problemsOf([{ name: 'PermissionOutcome', kind: 'union' }])).toContain(
      '/conversions/0: union PermissionOutcome: variant selected needs a conversion between v1 SelectedPermissionOutcome and v2 SelectedPermissionOutcome',
    );
  });

  it('rejects a mapping entry its JSON Schema does not allow, with the pointer', () => {
    expect(problemsOf([{ name: 'Role', kind: 'enum', renames: {} }])).toEqual([
      expect.stringMatching(/^\/conversions\/0: must NOT have additional properties/),
    ]);
  });

  it('omits a value out of the target bounds when omitInvalid asks for it', () => {
    const model = loadCompat({
      mappingPath: tempMapping([
        { name: 'ToolCallLocation', kind: 'object', omitInvalid: { toV2: ['line'] } },
      ]),
      v1SchemaPath: V1,
      v2SchemaPath: V2,
    });
    const [file] = emitCompatConverters(model);
    expect(file?.contents).toContain(
      '...(value.line === undefined || (value.line !== null && value.line < 1) ? {} : { line: value.line }),',
    );
  });

  it('refuses omitInvalid for a field without bounds', () => {
    expect(
      problemsOf([{ name: 'ToolCallLocation', kind: 'object', omitInvalid: { toV2: ['path'] } }]),
    ).toEqual(['/conversions/0: omitInvalid.toV2: target field path is required, so it cannot be omitted']);
  });

  it('needs a paired object conversion for a variant conversion', () => {
    expect(problemsOf([{ name: 'AvailableCommand', kind: 'variant', variant: 'Command' }])).toEqual([
      '/conversions/0: variant AvailableCommand: needs a conversion between v1 AvailableCommand and v2 Command',
    ]);
    expect(problemsOf([{ name: 'AvailableCommand', kind: 'variant', variant: 'Nope' }])).toContain(
      '/conversions/0: variant Nope is not a known variant of the v2 union AvailableCommand',
    );
  });

  it('names every method a method table leaves out, and asks why a method has no counterpart', () => {
    const problems = problemsOf([{ name: 'CancelNotification', kind: 'object' }], {
      methods: [
        { v1: 'session/cancel', v2: 'session/cancel', params: 'CancelNotification' },
        { v1: 'fs/read_text_file', v2: null },
      ],
    });
    expect(problems).toContain('/methods/1: a method without a counterpart needs lossy: why it has none');
    expect(problems).toContain(
      '/methods: v1 method authenticate is not listed; add it with its counterpart (or null and why)',
    );
    expect(problems).toContain(
      '/methods: v2 method auth/login is not listed; add it with its counterpart (or null and why)',
    );
    expect(problems.some((p) => p.includes('session/cancel is not listed'))).toBe(false);
  });

  it('names every update kind an update table leaves out', () => {
    const problems = problemsOf([{ name: 'Role', kind: 'enum' }], {
      updates: [{ v1: 'plan', v2: 'plan_update' }],
    });
    expect(problems).toContain(
      '/updates: v1 session update kind current_mode_update is not listed; add it with its counterpart (or null and why)',
    );
    expect(problems).toContain(
      '/updates: v2 session update kind state_update is not listed; add it with its counterpart (or null and why)',
    );
  });

  /** The repository mapping with its update table changed by `change`. */
  const repositoryMappingWith = (change: (updates: Record<string, unknown>[]) => void): string[] => {
    const mapping = JSON.parse(readFileSync(join(SCHEMA, 'compat/v1-v2.json'), 'utf8')) as {
      conversions: unknown[];
      methods: unknown[];
      updates: Record<string, unknown>[];
    };
    change(mapping.updates);
    return problemsOf(mapping.conversions, { methods: mapping.methods, updates: mapping.updates });
  };

  /** Where the repository mapping's update table has the first row matching `match`. */
  const rowOf = (match: (row: Record<string, unknown>) => boolean): number => {
    const mapping = JSON.parse(readFileSync(join(SCHEMA, 'compat/v1-v2.json'), 'utf8')) as {
      updates: Record<string, unknown>[];
    };
    return mapping.updates.findIndex(match);
  };

  it('asks for a converterToV1 when a v2 update kind becomes more than one v1 kind', () => {
    const problems = repositoryMappingWith((updates) => {
      for (const row of updates) if (row.v2 === 'config_option_update') delete row.converterToV1;
    });
    const at = rowOf((row) => row.v2 === 'config_option_update');
    expect(problems).toEqual([
      `/updates/${at}: v2 kind config_option_update: it becomes current_mode_update or config_option_update in v1: name a converterToV1 that decides`,
    ]);
  });

  it('refuses an update conversion that does not convert the two update variants toV1', () => {
    const problems = repositoryMappingWith((updates) => {
      const row = updates.find((r) => r.v2 === 'session_info_update');
      if (row) row.conversion = 'UsageUpdate';
    });
    const at = rowOf((row) => row.v2 === 'session_info_update');
    expect(problems).toEqual([
      `/updates/${at}: v2 kind session_info_update: conversion UsageUpdate must convert v2 SessionInfoUpdate into v1 SessionInfoUpdate (toV1), or name a converterToV1`,
    ]);
  });

  it('refuses a v1Capability that names no v1 client capability', () => {
    const problems = repositoryMappingWith((updates) => {
      const row = updates.find((r) => r.v2 === 'notice');
      if (row) row.v1Capability = '/session/notes';
    });
    const at = rowOf((row) => row.v2 === 'notice');
    expect(problems).toEqual([
      `/updates/${at}: v1Capability: pointer /session/notes does not resolve: ClientCapabilities at /session has no property "notes"`,
    ]);
  });

  it('emits the v2 → v1 update table for every v2 kind: hand-written converters, generated conversions, capabilities and losses', () => {
    const model = loadCompat({
      mappingPath: join(SCHEMA, 'compat/v1-v2.json'),
      v1SchemaPath: V1,
      v2SchemaPath: V2,
    });
    const [file] = emitCompatUpdates(model);
    expect(file?.path).toBe('update-to-v1.ts');
    expect(model.updatesToV1.map((u) => u.v2)).toEqual(
      model.v2.unions.find((u) => u.name === 'SessionUpdate')?.variants.map((v) => v.tagValue),
    );
    expect(file?.contents).toContain(
      'export const UPDATES_TO_V1: { readonly [K in V2.UpdateKind]: UpdateToV1<V2.UpdateOfKind[K]> } = {',
    );
    expect(file?.contents).toContain(
      "  notice: {\n    v1: ['notice'],\n    v1Capability: '/session/notices',\n    convert: (update) => [v2ToV1Notice(update)],\n  },",
    );
    expect(file?.contents).toContain(
      "  tool_call_update: {\n    v1: ['tool_call', 'tool_call_update'],\n    convert: updates.toolCallToV1,\n  },",
    );
    // A terminal reaches v1 through its hand-written converter (background terminals become v1 tool
    // calls); a kind without a v1 form is a loss with the mapping's reason.
    expect(file?.contents).toContain(
      "  terminal_update: {\n    v1: ['tool_call', 'tool_call_update'],\n    convert: updates.terminalToV1,\n  },",
    );
    // A kind v1 takes only from a client that advertised a capability, and one whose v1 form a
    // hand-written converter picks (plan_update: v1's stable plan, or its unstable plan_update).
    expect(file?.contents).toContain(
      "  plan_removed: {\n    v1: ['plan_removed'],\n    v1Capability: '/plan',\n    convert: (update) => [v2ToV1PlanRemoved(update)],\n  },",
    );
    expect(file?.contents).toContain(
      "  plan_update: {\n    v1: ['plan', 'plan_update'],\n    convert: updates.planToV1,\n  },",
    );
  }, 180_000);

  it('emits a v2 kind without a v1 counterpart as a loss with the mapping reason', () => {
    const mapping = JSON.parse(readFileSync(join(SCHEMA, 'compat/v1-v2.json'), 'utf8')) as {
      conversions: unknown[];
      methods: unknown[];
      updates: Record<string, unknown>[];
    };
    const row = mapping.updates.find((r) => r.v2 === 'plan_removed') as Record<string, unknown>;
    for (const key of Object.keys(row)) if (key !== 'v2') delete row[key];
    Object.assign(row, { v1: null, lossy: 'No plan removal in this version.' });
    // v1's own plan_removed, left without a v2 counterpart the same way.
    mapping.updates.push({ v1: 'plan_removed', v2: null, lossy: 'Not carried in this test.' });
    const mappingPath = tempMapping(mapping.conversions, {
      methods: mapping.methods,
      updates: mapping.updates,
    });
    const model = loadCompat({ mappingPath, v1SchemaPath: V1, v2SchemaPath: V2 });
    const [file] = emitCompatUpdates(model);
    expect(file?.contents).toMatch(
      / {2}plan_removed: \{\n {4}v1: \[\],\n {4}lossy: 'No plan removal in this version\.'/,
    );
  }, 180_000);
});
