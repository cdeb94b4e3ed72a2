import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCHEMA_DIR } from './cases.js';

// biome-ignore lint/suspicious/noExplicitAny: test edits reach into arbitrary JSON.
type JsonRecord = Record<string, any>;

const CLI = join(
  dirname(createRequire(import.meta.url).resolve('@acp-kit/codegen/package.json')),
  'dist',
  'cli.js',
);

/** A private copy of schema/v2 in the OS temp folder; the real schema is never touched. */
function tempSchemaCopy(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'acp-kit-schema-')), 'v2');
  cpSync(SCHEMA_DIR, dir, { recursive: true });
  return dir;
}

function run(...args: string[]): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

function checkSchema(dir: string) {
  return run(
    'check-schema',
    '--schema',
    join(dir, 'schema.json'),
    '--examples',
    join(dir, 'examples'),
    '--invalid',
    join(dir, 'invalid'),
  );
}

function editJson(path: string, edit: (value: JsonRecord) => void): void {
  const value = JSON.parse(readFileSync(path, 'utf8')) as JsonRecord;
  edit(value);
  writeFileSync(path, JSON.stringify(value, null, 2));
}

// Each case spawns the CLI, which compiles the whole schema (about 7 s for one generate alone);
// the drift case generates three times. Inside `npm run check` on two cores it took 260–390 s, so
// the limit is generous: a hang still fails, a busy machine does not.
describe('codegen commands on temporary copies of schema/v2', { timeout: 600_000 }, () => {
  it('check-schema passes on an untouched copy', () => {
    const result = checkSchema(tempSchemaCopy());
    expect(result.output).toMatch(/schema ok/);
    expect(result.status).toBe(0);
  });

  it('check-schema fails on a schema edit that breaks meta-validation, naming file and pointer', () => {
    const dir = tempSchemaCopy();
    editJson(join(dir, 'schema.json'), (schema) => {
      schema.$defs.SessionId.type = 'strng';
    });
    const result = checkSchema(dir);
    expect(result.status).toBe(1);
    expect(result.output).toContain('schema.json#/$defs/SessionId/type');
  });

  it('check-schema fails on an example that does not validate, naming file and pointer', () => {
    const dir = tempSchemaCopy();
    editJson(
      join(dir, 'examples', 'PromptResponse', readdirFirst(join(dir, 'examples', 'PromptResponse'))),
      (value) => {
        value.messageId = null;
      },
    );
    const result = checkSchema(dir);
    expect(result.status).toBe(1);
    expect(result.output).toMatch(/examples\/PromptResponse\/[^#]+\.json#\/messageId: /);
  });

  it('check-schema fails on an invalid case the schema accepts, naming the file', () => {
    const dir = tempSchemaCopy();
    writeFileSync(join(dir, 'invalid', 'PromptResponse', 'actually-valid.json'), '{"messageId":"m1"}');
    const result = checkSchema(dir);
    expect(result.status).toBe(1);
    expect(result.output).toContain('invalid/PromptResponse/actually-valid.json#: accepted by');
  });

  it('generate --check fails on drift, naming the file that would change', () => {
    const dir = tempSchemaCopy();
    const out = join(dir, 'generated');
    expect(run('generate', '--schema', join(dir, 'schema.json'), '--out', out).status).toBe(0);
    expect(run('generate', '--schema', join(dir, 'schema.json'), '--out', out, '--check').status).toBe(0);
    editJson(join(dir, 'schema.json'), (schema) => {
      schema.$defs.SessionId.description = 'Identifies a session, reworded.';
    });
    const result = run('generate', '--schema', join(dir, 'schema.json'), '--out', out, '--check');
    expect(result.status).toBe(1);
    expect(result.output).toMatch(/out of date \(would be rewritten\): .*types\.ts/);
  });
});

function readdirFirst(dir: string): string {
  const [first] = readdirSync(dir).sort();
  if (first === undefined) throw new Error(`no examples in ${dir}`);
  return first;
}
