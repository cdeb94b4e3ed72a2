import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeDrift, generate } from '../src/generate.js';
import { applyWrite, isUpToDate, planWrite } from '../src/write/writer.js';
import { MINI_SCHEMA } from './helpers.js';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'acp-kit-writer-'));
}

describe('writer', () => {
  it('plans created, changed and deleted files without touching the directory', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'same.ts'), 'same');
    writeFileSync(join(dir, 'old.ts'), 'old');
    writeFileSync(join(dir, 'stray.ts'), 'stray');
    const files = [
      { path: 'same.ts', contents: 'same' },
      { path: 'old.ts', contents: 'new' },
      { path: 'nested/new.ts', contents: 'fresh' },
    ];
    const plan = planWrite(dir, files);
    expect(plan).toEqual({
      created: ['nested/new.ts'],
      changed: ['old.ts'],
      deleted: ['stray.ts'],
      unchanged: ['same.ts'],
    });
    expect(readFileSync(join(dir, 'old.ts'), 'utf8')).toBe('old');
    applyWrite(dir, files);
    expect(isUpToDate(planWrite(dir, files))).toBe(true);
    expect(existsSync(join(dir, 'stray.ts'))).toBe(false);
  });

  it('in check mode, names every file that would change and writes nothing', async () => {
    const out = tempDir();
    await generate({ schemaPath: MINI_SCHEMA, outDir: out });
    writeFileSync(join(out, 'types.ts'), '// edited by hand\n');
    mkdirSync(join(out, 'extra'));
    writeFileSync(join(out, 'extra', 'leftover.ts'), '');
    const result = await generate({ schemaPath: MINI_SCHEMA, outDir: out, check: true });
    expect(result.upToDate).toBe(false);
    const lines = describeDrift(out, result.plan).join('\n');
    expect(lines).toMatch(/out of date.*types\.ts/);
    expect(lines).toMatch(/stray.*extra\/leftover\.ts/);
    expect(readFileSync(join(out, 'types.ts'), 'utf8')).toBe('// edited by hand\n');
  });

  it('reports each pipeline step with its duration', async () => {
    const steps: string[] = [];
    await generate({
      schemaPath: MINI_SCHEMA,
      outDir: tempDir(),
      check: true,
      onStep: (s) => steps.push(s.step),
    });
    expect(steps).toEqual([
      'load',
      'model',
      'emit types',
      'emit methods',
      'emit update kinds',
      'emit method capabilities',
      'emit known values',
      'emit validators',
      'emit validate wrapper',
      'check',
    ]);
  });
});
