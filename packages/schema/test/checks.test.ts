import { compareChecks } from '@acp-kit/codegen';
import { describe, expect, it } from 'vitest';
import * as checks from '../src/generated/checks.js';
import * as compiled from '../src/generated/validators.js';
import { EXAMPLES, INVALID } from './cases.js';

describe('fast checks', () => {
  it('exist for every definition', () => {
    expect(Object.keys(checks).sort()).toEqual(Object.keys(compiled).sort());
  });

  it('decide exactly as the Ajv validators on every case against every definition, and on every one-step mutation of each', () => {
    const { compared, disagreements } = compareChecks(checks, compiled, [...EXAMPLES, ...INVALID]);
    expect(compared).toBeGreaterThan(50_000);
    expect(disagreements.slice(0, 20)).toEqual([]);
  });
});
