import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  availableVersions,
  buildDefinitionEntries,
  buildVersionEntry,
  loadVersionModel,
} from '../src/reference/build.ts';
import { constraintsOf, typeTokens } from '../src/reference/type-expr.ts';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const text = (tokens: readonly { text: string }[]) => tokens.map((t) => t.text).join('');

describe('type expressions', () => {
  it('keeps $refs as links inside arrays and unions', () => {
    const tokens = typeTokens({ type: ['array', 'null'], items: { $ref: '#/$defs/ContentBlock' } });
    expect(text(tokens)).toBe('ContentBlock[] | null');
    expect(tokens.filter((t) => t.ref !== undefined)).toEqual([
      { text: 'ContentBlock', ref: 'ContentBlock' },
    ]);
  });

  it('shows an open enum as its known values plus _-prefixed extensions', () => {
    const tokens = typeTokens({
      type: 'string',
      anyOf: [{ enum: ['end_turn', 'refusal'] }, { pattern: '^_' }],
    });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the expected text is a TypeScript type.
    expect(text(tokens)).toBe('"end_turn" | "refusal" | `_${string}`');
  });

  it('falls back to unknown for a schema it cannot name, and lists constraints', () => {
    expect(text(typeTokens({ description: 'anything' }))).toBe('unknown');
    expect(constraintsOf({ type: 'string', minLength: 1, pattern: '^_' })).toEqual([
      'pattern ^_',
      'minLength 1',
    ]);
  });
});

describe('reference entries from the v2 schema', () => {
  const model = loadVersionModel(REPO, 'v2');
  const entries = buildDefinitionEntries(model, 'v2', REPO);

  it('covers v2 always and v1 once schema/v1/schema.json exists', () => {
    expect(availableVersions(REPO)[0]).toBe('v2');
    expect(entries.map((e) => e.name)).toEqual(model.definitions.map((d) => d.name));
  });

  it('gives PromptResponse its required messageId field, its method and its example files', () => {
    const entry = entries.find((e) => e.name === 'PromptResponse');
    expect(entry?.fields.find((f) => f.name === 'messageId')).toMatchObject({
      required: true,
      type: [{ text: 'MessageId', ref: 'MessageId' }],
    });
    expect(entry?.methods.map((m) => [m.name, m.params, m.result])).toEqual([
      ['session/prompt', 'PromptRequest', 'PromptResponse'],
    ]);
    expect(entry?.examples.map((e) => e.file)).toContain(
      'schema/v2/examples/PromptResponse/rfd-insertion-receipt.json',
    );
  });

  it('lists union variants with their tag values and the extension branch', () => {
    const entry = entries.find((e) => e.name === 'SessionUpdate');
    expect(entry?.kind).toBe('union');
    expect(entry?.union?.tag).toBe('sessionUpdate');
    expect(entry?.union?.variants).toContainEqual({
      tagValue: 'user_message',
      definition: 'UserMessageUpdate',
      nested: false,
    });
    expect(entry?.union?.variants.find((v) => v.tagValue === 'state_update')?.nested).toBe(true);
    expect(entry?.union?.extension).toBeDefined();
  });

  it('indexes every method on the version overview', () => {
    const overview = buildVersionEntry(model, 'v2');
    expect(overview.methods.map((m) => m.name)).toEqual(model.methods.map((m) => m.name));
    expect(overview.definitions).toHaveLength(model.definitions.length);
  });
});
