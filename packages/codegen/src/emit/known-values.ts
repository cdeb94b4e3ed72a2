import { VariableDeclarationKind } from 'ts-morph';
import type { SchemaModel } from '../model/model.js';
import { type EmittedFile, generatedHeader } from './emitted-file.js';
import { createProject, printSourceFile, quote } from './ts-project.js';

/**
 * Emits `known-values.ts`: the values this schema version defines for every open enum and the
 * tags of every discriminated union. Receivers accept other values; producers that want to stay
 * within the current version (and conformance checks of them) compare against these lists.
 */
export function emitKnownValues(model: SchemaModel): EmittedFile[] {
  const project = createProject();
  const file = project.createSourceFile('known-values.ts');
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [
      {
        description:
          'The values this schema version defines for each open enum, by definition name. Other values are accepted: `_`-prefixed ones are implementation-defined, the rest belong to later protocol versions.',
      },
    ],
    declarations: [
      {
        name: 'KNOWN_ENUM_VALUES',
        initializer: (writer) => {
          writer.inlineBlock(() => {
            for (const e of model.openEnums) {
              writer.writeLine(`${e.name}: [${e.known.map(quote).join(', ')}],`);
            }
          });
          writer.write(' as const');
        },
      },
    ],
  });
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [
      {
        description:
          'The tag property and the tag values this schema version defines for each discriminated union, by definition name (a nested union counts once, under its outer tag value).',
      },
    ],
    declarations: [
      {
        name: 'KNOWN_UNION_TAGS',
        initializer: (writer) => {
          writer.inlineBlock(() => {
            for (const u of model.unions) {
              const tags = [...new Set(u.variants.map((v) => v.tagValue))];
              writer.writeLine(
                `${u.name}: { tag: ${quote(u.tag)}, values: [${tags.map(quote).join(', ')}] },`,
              );
            }
          });
          writer.write(' as const');
        },
      },
    ],
  });
  return [{ path: 'known-values.ts', contents: printSourceFile(generatedHeader(model), file) }];
}
