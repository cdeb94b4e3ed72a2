import { describe, expect, it } from 'vitest';
import { type DefinitionName, validate } from '../src/generated/index.js';
import { EXAMPLES } from './cases.js';

describe('serialization round-trips', () => {
  it.each(EXAMPLES.map((c) => [c.label, c] as const))(
    '%s survives parse → validate → stringify → parse',
    (_l, c) => {
      const parsed: unknown = JSON.parse(c.text);
      const result = validate(c.definition as DefinitionName, parsed);
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      const again: unknown = JSON.parse(JSON.stringify(result.value));
      expect(again).toEqual(parsed);
      expect(validate(c.definition as DefinitionName, again).ok).toBe(true);
    },
  );
});
