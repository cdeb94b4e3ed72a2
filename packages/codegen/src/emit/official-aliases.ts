import type { SchemaModel } from '../model/model.js';
import { type EmittedFile, generatedHeader } from './emitted-file.js';
import { createProject, docText, printSourceFile } from './ts-project.js';

/** One official definition name and ours (`schema/parity/names.json`'s `counterparts`). */
export interface OfficialCounterpart {
  /** Our definition, or `null` when there is none. */
  readonly ours: string | null;
  readonly reason: string;
}

/** `schema/parity/names.json`: the official SDK's definitions that acp-kit names differently. */
export interface OfficialNames {
  readonly counterparts: Readonly<Record<string, OfficialCounterpart>>;
}

/** The counterparts that become aliases, and why each other one does not. */
export function officialAliases(
  model: SchemaModel,
  names: OfficialNames,
): {
  aliases: { official: string; ours: string; reason: string }[];
  skipped: { official: string; why: string }[];
} {
  const defined = new Set(model.definitions.map((d) => d.name));
  const aliases: { official: string; ours: string; reason: string }[] = [];
  const skipped: { official: string; why: string }[] = [];
  for (const [official, { ours, reason }] of Object.entries(names.counterparts)) {
    if (ours === null) skipped.push({ official, why: `no counterpart: ${reason}` });
    else if (official === ours) skipped.push({ official, why: 'the same name in both (split differently)' });
    else if (defined.has(official))
      skipped.push({ official, why: `acp-kit has its own ${official} (the official one is ${ours} here)` });
    else if (!defined.has(ours))
      throw new Error(`official name ${official}: counterpart ${ours} is not a definition`);
    else aliases.push({ official, ours, reason });
  }
  return { aliases, skipped };
}

/**
 * Emits `official-names.ts`: a `@deprecated` type alias under each official SDK name acp-kit spells
 * differently, pointing to ours, so code written against the official types finds them.
 */
export function emitOfficialAliases(model: SchemaModel, names: OfficialNames): EmittedFile[] {
  const { aliases, skipped } = officialAliases(model, names);
  const project = createProject();
  const file = project.createSourceFile('official-names.ts');
  file.addImportDeclaration({
    isTypeOnly: true,
    moduleSpecifier: './types.js',
    namedImports: [...new Set(aliases.map((a) => a.ours))].sort(),
  });
  for (const { official, ours, reason } of aliases) {
    file.addTypeAlias({
      isExported: true,
      name: official,
      type: ours,
      docs: [
        {
          description: `The official ACP SDK's name for {@link ${ours}}. ${docText(reason)}`,
          tags: [{ tagName: 'deprecated', text: `Use {@link ${ours}}, acp-kit's name for it.` }],
        },
      ],
    });
  }
  const header = [
    generatedHeader(model),
    '// The official SDK (@agentclientprotocol/sdk) names these definitions differently; each alias points',
    "// to acp-kit's (schema/parity/names.json). Not aliased:",
    ...skipped.map((s) => `//   ${s.official}: ${s.why}`),
  ].join('\n');
  return [{ path: 'official-names.ts', contents: printSourceFile(header, file) }];
}
