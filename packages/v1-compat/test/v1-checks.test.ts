import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compareChecks, listCases } from '@acp-kit/codegen';
import { describe, expect, it } from 'vitest';
import * as checks from '../src/generated/v1/checks.js';
import * as compiled from '../src/generated/v1/validators.js';

const SCHEMA_DIR = fileURLToPath(new URL('../../../schema/v1/', import.meta.url));
const cases = ['examples', 'invalid'].flatMap((kind) =>
  listCases(`${SCHEMA_DIR}${kind}`).map((c) => ({
    definition: c.definition,
    value: JSON.parse(readFileSync(c.path, 'utf8')) as unknown,
  })),
);

describe('v1 fast checks', () => {
  it('decide exactly as the v1 Ajv validators on every case against every definition, and on every one-step mutation of each', () => {
    expect(Object.keys(checks).sort()).toEqual(Object.keys(compiled).sort());
    const { compared, disagreements } = compareChecks(checks, compiled, cases);
    expect(compared).toBeGreaterThan(20_000);
    expect(disagreements.slice(0, 20)).toEqual([]);
  });
});
