import { describe, expect, it } from 'vitest';
import { emitOfficialAliases } from '../src/emit/official-aliases.js';
import { miniSchema, modelOf } from './helpers.js';

describe('official-name aliases', () => {
  const model = modelOf(miniSchema());
  const defined = model.definitions.map((d) => d.name);
  const [first, second] = defined;

  it('exports each official name as a @deprecated alias of ours, and lists the ones it cannot alias', () => {
    const [file] = emitOfficialAliases(model, {
      counterparts: {
        OfficialFirst: { ours: first!, reason: 'Shorter name.' },
        ExtRequest: { ours: null, reason: 'Any JSON value.' },
        [second!]: { ours: first!, reason: 'Clash.' },
      },
    });
    expect(file!.path).toBe('official-names.ts');
    expect(file!.contents).toContain(`import type { ${first} } from './types.js';`);
    expect(file!.contents).toContain(
      `/**\n * The official ACP SDK's name for {@link ${first}}. Shorter name.\n * @deprecated Use {@link ${first}}, acp-kit's name for it.\n */\nexport type OfficialFirst = ${first};`,
    );
    expect(file!.contents).toContain('//   ExtRequest: no counterpart: Any JSON value.');
    expect(file!.contents).toContain(`//   ${second}: acp-kit has its own ${second}`);
    expect(file!.contents).not.toContain(`export type ${second} =`);
  });

  it('refuses a counterpart that is not one of our definitions', () => {
    expect(() =>
      emitOfficialAliases(model, { counterparts: { X: { ours: 'NoSuchDefinition', reason: '' } } }),
    ).toThrow('official name X: counterpart NoSuchDefinition is not a definition');
  });
});
