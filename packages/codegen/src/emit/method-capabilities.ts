import { VariableDeclarationKind, type WriterFunction } from 'ts-morph';
import type { MethodModel, SchemaModel } from '../model/model.js';
import { type EmittedFile, generatedHeader } from './emitted-file.js';
import { createProject, docText, printSourceFile, quote } from './ts-project.js';

/** The side that serves a method, and so advertises the capability gating it. */
function servedBy(method: MethodModel): 'agent' | 'client' | 'both' {
  if (method.direction === 'client_to_agent') return 'agent';
  if (method.direction === 'agent_to_client') return 'client';
  return 'both';
}

function gateLiteral(method: MethodModel): WriterFunction {
  return (writer) => {
    writer.inlineBlock(() => {
      writer.writeLine(`method: ${quote(method.name)},`);
      writer.writeLine(`direction: ${quote(method.direction)},`);
      writer.writeLine(`kind: ${quote(method.kind)},`);
      writer.writeLine(`servedBy: ${quote(servedBy(method))},`);
      const capability = method.capability;
      if (capability === undefined) {
        writer.writeLine('capability: null,');
        return;
      }
      writer.write('capability: ').inlineBlock(() => {
        writer.writeLine(`in: ${quote(capability.in)},`);
        writer.writeLine(`pointer: ${quote(capability.pointer)},`);
        writer.writeLine(`path: [${capability.path.map(quote).join(', ')}],`);
        writer.writeLine(`valueType: ${quote(capability.valueType)},`);
        writer.writeLine(`atInitialize: ${capability.atInitialize},`);
        writer.writeLine(`description: ${quote(capability.description)},`);
      });
      writer.write(',').newLine();
    });
  };
}

/**
 * Emits `method-capabilities.ts`: for every method of `x-methods`, its direction, whether it is a
 * request or a notification, the side that serves it, and the capability that gates it (where
 * it is advertised, as a definition and a pointer into it) or `null` for a baseline method. An
 * SDK advertises and refuses methods by this table instead of a hand-kept list.
 */
export function emitMethodCapabilities(model: SchemaModel): EmittedFile[] {
  if (model.methods.length === 0) return [];
  const project = createProject();
  const file = project.createSourceFile('method-capabilities.ts');
  file.addImportDeclaration({
    isTypeOnly: true,
    moduleSpecifier: './methods.js',
    namedImports: ['MethodName'],
  });
  file.addImportDeclaration({
    isTypeOnly: true,
    moduleSpecifier: './types.js',
    namedImports: ['DefinitionName'],
  });

  file.addInterface({
    name: 'MethodCapability',
    isExported: true,
    docs: [
      {
        description:
          'Where the capability gating a method is advertised. It is advertised when the value at `pointer` in an instance of `in` is present and is not `null`, `false` or an empty array.',
      },
    ],
    properties: [
      {
        name: 'in',
        isReadonly: true,
        type: 'DefinitionName',
        docs: [
          'The definition that advertises it: the initialize result (the agent) or params (the client), or an entity whose own capabilities scope the method (a tool call, a terminal).',
        ],
      },
      { name: 'pointer', isReadonly: true, type: 'string', docs: ['RFC 6901 pointer within `in`.'] },
      { name: 'path', isReadonly: true, type: 'readonly string[]', docs: ["The pointer's tokens."] },
      {
        name: 'valueType',
        isReadonly: true,
        type: 'string',
        docs: [
          'The JSON type of the value there: `object` (advertised as `{}` or more), `boolean` (`true`), `array` (non-empty); `unknown` if the schema admits several.',
        ],
      },
      {
        name: 'atInitialize',
        isReadonly: true,
        type: 'boolean',
        docs: ['True when it is advertised once, in the initialize exchange; false when per entity.'],
      },
      {
        name: 'description',
        isReadonly: true,
        type: 'string',
        docs: ['What the capability means for the method.'],
      },
    ],
  });
  file.addInterface({
    name: 'MethodGate',
    isExported: true,
    docs: [{ description: 'What the schema says about serving one method.' }],
    properties: [
      { name: 'method', isReadonly: true, type: 'MethodName', docs: ['The wire name.'] },
      {
        name: 'direction',
        isReadonly: true,
        type: "'client_to_agent' | 'agent_to_client' | 'both'",
        docs: ['Who sends it.'],
      },
      {
        name: 'kind',
        isReadonly: true,
        type: "'request' | 'notification'",
        docs: ['Whether it expects a response.'],
      },
      {
        name: 'servedBy',
        isReadonly: true,
        type: "'agent' | 'client' | 'both'",
        docs: ['The side that receives and serves it.'],
      },
      {
        name: 'capability',
        isReadonly: true,
        type: 'MethodCapability | null',
        docs: ['The capability that gates it, or null for a baseline method (always available).'],
      },
    ],
  });
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [{ description: 'The method → capability table, by wire name, in schema order.' }],
    declarations: [
      {
        name: 'METHOD_CAPABILITIES',
        initializer: (writer) => {
          writer.inlineBlock(() => {
            for (const method of model.methods) {
              writer.writeLine(`/** ${docText(method.description)} */`);
              writer.write(`${quote(method.name)}: `);
              gateLiteral(method)(writer);
              writer.write(',').newLine();
            }
          });
          writer.write(
            ' as const satisfies { readonly [M in MethodName]: MethodGate & { readonly method: M } }',
          );
        },
      },
    ],
  });
  file.addTypeAlias({
    name: 'GatedMethod',
    isExported: true,
    docs: [{ description: 'The methods a capability gates.' }],
    type: "{ [M in MethodName]: (typeof METHOD_CAPABILITIES)[M]['capability'] extends null ? never : M }[MethodName]",
  });
  file.addTypeAlias({
    name: 'BaselineMethod',
    isExported: true,
    docs: [{ description: 'The methods no capability gates: always available.' }],
    type: 'Exclude<MethodName, GatedMethod>',
  });
  return [{ path: 'method-capabilities.ts', contents: printSourceFile(generatedHeader(model), file) }];
}
