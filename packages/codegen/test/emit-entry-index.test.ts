import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { emitEntryIndex } from '../src/emit/entry-index.js';
import { generate } from '../src/generate.js';
import { MINI_SCHEMA, miniSchema, modelOf } from './helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('emitEntryIndex', () => {
  it('names every export of the generated modules one by one, types marked, validators left out', async () => {
    const out = mkdtempSync(join(tmpdir(), 'acp-kit-entry-index-'));
    dirs.push(out);
    const result = await generate({
      schemaPath: MINI_SCHEMA,
      outDir: out,
      entryIndexDoc: 'The mini package.',
    });
    expect(result.files.map((file) => file.path)).toContain('index.ts');
    const index = readFileSync(join(out, 'index.ts'), 'utf8');
    expect(index).not.toMatch(/export \*/);
    expect(index).toContain(' * The mini package.\n *\n * @packageDocumentation');
    expect(index).toMatch(/export type \{\n[^}]*\n\} from '\.\/types\.js';/);
    expect(index).toMatch(/export \{\n[^}]* {2}METHODS,\n[^}]*\} from '\.\/methods\.js';/);
    expect(index).toMatch(/ {2}type MethodName,\n/);
    expect(index).not.toContain("from './validators.js'");
    expect(index).toContain(
      "export type {\n  ValidationIssue,\n  ValidationResult,\n} from '../validation-runtime.js';",
    );
    // Without the option, no entry point is written (v1-compat's generated v1 bindings have none).
    const plain = await generate({ schemaPath: MINI_SCHEMA, outDir: out, check: true });
    expect(plain.files.map((file) => file.path)).not.toContain('index.ts');
  });

  it('refuses a name two generated modules both export, which export * would drop silently', () => {
    const model = modelOf(miniSchema());
    const files = [
      { path: 'a.ts', contents: 'export const Shared = 1;\n' },
      { path: 'b.ts', contents: 'export type Shared = string;\n' },
    ];
    expect(() => emitEntryIndex(model, files, { runtimeModule: '../rt.js', packageDoc: 'x' })).toThrow(
      'generated modules a.ts and b.ts both export Shared',
    );
  });
});
