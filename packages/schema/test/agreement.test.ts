import { canonicalValidators } from '@acp-kit/codegen';
import { describe, expect, it } from 'vitest';
import { type DefinitionName, validate } from '../src/generated/index.js';
import { EXAMPLES, INVALID, canonicalSchema } from './cases.js';

const canonical = canonicalValidators(canonicalSchema() as Parameters<typeof canonicalValidators>[0]);

function verdicts(definition: string, value: unknown): { canonical: boolean; generated: boolean } {
  const reference = canonical(definition);
  if (reference === undefined) throw new Error(`no definition ${definition}`);
  return { canonical: reference(value), generated: validate(definition as DefinitionName, value).ok };
}

describe('generated validators agree with the canonical schema', () => {
  it('has examples and invalid cases to compare', () => {
    expect(EXAMPLES.length).toBeGreaterThan(0);
    expect(INVALID.length).toBeGreaterThan(0);
  });

  it.each(EXAMPLES.map((c) => [c.label, c] as const))('accepts example %s', (_label, c) => {
    expect(verdicts(c.definition, c.value)).toEqual({ canonical: true, generated: true });
  });

  it.each(INVALID.map((c) => [c.label, c] as const))('rejects invalid case %s', (_label, c) => {
    expect(verdicts(c.definition, c.value)).toEqual({ canonical: false, generated: false });
  });
});
