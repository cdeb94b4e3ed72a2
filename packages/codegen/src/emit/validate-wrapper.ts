import { type SourceFile, VariableDeclarationKind } from 'ts-morph';
import type { SchemaModel } from '../model/model.js';
import { type EmittedFile, generatedHeader } from './emitted-file.js';
import { createProject, docText, printSourceFile, quote } from './ts-project.js';
import { UPDATE_METHOD } from './update-kinds.js';

/** Options of the typed validator wrapper. */
export interface ValidateWrapperOptions {
  /**
   * Module (relative to the output directory) that provides `runValidator`, `CompiledValidator`
   * and `ValidationResult` — the hand-written half of the validation API.
   */
  readonly runtimeModule: string;
}

/** The imports: the types, the fast checks, the compiled validators and the runtime. */
function addImports(file: SourceFile, names: readonly string[], options: ValidateWrapperOptions): void {
  file.addImportDeclaration({
    isTypeOnly: true,
    moduleSpecifier: './types.js',
    namedImports: ['DefinitionName', 'Definitions', ...names].sort(),
  });
  file.addImportDeclaration({ moduleSpecifier: './checks.js', namespaceImport: 'checks' });
  file.addImportDeclaration({ moduleSpecifier: './validators.js', namespaceImport: 'compiled' });
  file.addImportDeclaration({
    moduleSpecifier: options.runtimeModule,
    namedImports: [
      { name: 'CompiledValidator', isTypeOnly: true },
      { name: 'ValidationResult', isTypeOnly: true },
      { name: 'runValidator' },
    ],
  });
}

/**
 * `VALIDATORS` and `CHECKS` by definition; `decide`, which decides with a check and asks Ajv why;
 * `run` by definition name; and `resolved`, a definition's pair as the method tables hold it.
 */
function addRunner(file: SourceFile, names: readonly string[]): void {
  file.addVariableStatement({
    declarationKind: VariableDeclarationKind.Const,
    declarations: [
      {
        name: 'VALIDATORS',
        type: '{ readonly [N in DefinitionName]: CompiledValidator }',
        initializer: (writer) => {
          writer.inlineBlock(() => {
            for (const name of names) writer.writeLine(`${name}: compiled.${name},`);
          });
        },
      },
    ],
  });
  file.addVariableStatement({
    declarationKind: VariableDeclarationKind.Const,
    declarations: [
      {
        name: 'CHECKS',
        type: '{ readonly [N in DefinitionName]: (value: unknown) => boolean }',
        initializer: (writer) => {
          writer.inlineBlock(() => {
            for (const name of names) writer.writeLine(`${name}: checks.${name},`);
          });
        },
      },
    ],
  });
  file.addFunction({
    name: 'decide',
    docs: [
      {
        description:
          "Decides with a definition's fast check; only a value it rejects goes through the definition's Ajv validator, which says why.",
      },
    ],
    typeParameters: [{ name: 'T' }],
    parameters: [
      { name: 'check', type: '(value: unknown) => boolean' },
      { name: 'validator', type: 'CompiledValidator' },
      { name: 'value', type: 'unknown' },
    ],
    returnType: 'ValidationResult<T>',
    statements: 'return check(value) ? { ok: true, value: value as T } : runValidator<T>(validator, value);',
  });
  file.addFunction({
    name: 'run',
    docs: [{ description: '{@link decide} for a definition named at the call.' }],
    typeParameters: [{ name: 'T' }],
    parameters: [
      { name: 'name', type: 'DefinitionName' },
      { name: 'value', type: 'unknown' },
    ],
    returnType: 'ValidationResult<T>',
    statements: 'return decide<T>(CHECKS[name], VALIDATORS[name], value);',
  });
  file.addInterface({
    name: 'Resolved',
    docs: [
      { description: "A definition's check and validator, looked up once, when a method table is built." },
    ],
    properties: [
      { name: 'check', isReadonly: true, type: '(value: unknown) => boolean' },
      { name: 'validator', isReadonly: true, type: 'CompiledValidator' },
    ],
  });
  file.addFunction({
    name: 'resolved',
    docs: [{ description: 'The check and validator of a definition, for a method table.' }],
    parameters: [{ name: 'name', type: 'DefinitionName' }],
    returnType: 'Resolved',
    statements: 'return { check: CHECKS[name], validator: VALIDATORS[name] };',
  });
}

/** The method tables: `PARAMS`, `OPTIONAL_PARAMS` and `RESULTS` (the first and last by resolved definition). */
function addMethodTables(file: SourceFile, model: SchemaModel): void {
  const table = (name: string, entries: [string, string][]) =>
    file.addVariableStatement({
      declarationKind: VariableDeclarationKind.Const,
      declarations: [
        {
          name,
          type: 'ReadonlyMap<string, Resolved>',
          initializer: (writer) => {
            writer.write('new Map<string, Resolved>([');
            writer.indent(() => {
              for (const [method, def] of entries)
                writer.writeLine(`[${quote(method)}, resolved(${quote(def)})],`);
            });
            writer.write('])');
          },
        },
      ],
    });
  table(
    'PARAMS',
    model.methods.map((m) => [m.name, m.params]),
  );
  file.addVariableStatement({
    declarationKind: VariableDeclarationKind.Const,
    docs: [
      {
        description:
          'Methods whose params require no property: an omitted `params` is validated, and handed on, as `{}`.',
      },
    ],
    declarations: [
      {
        name: 'OPTIONAL_PARAMS',
        type: 'ReadonlySet<string>',
        initializer: (writer) => {
          writer.write('new Set<string>([');
          writer.indent(() => {
            for (const m of model.methods) if (m.paramsOptional) writer.writeLine(`${quote(m.name)},`);
          });
          writer.write('])');
        },
      },
    ],
  });
  table(
    'RESULTS',
    model.methods.flatMap((m): [string, string][] => (m.result === undefined ? [] : [[m.name, m.result]])),
  );
}

/**
 * The first statement of `validateParams`: the params of {@link UPDATE_METHOD}, the notification
 * that carries every chunk of every reply (most of what a client parses), are checked by a direct
 * call to their check instead of through the table: no map lookup, and a call the engine can inline
 * (a call through the table's `check` sees every method's check and cannot be). None when the
 * schema has no such method.
 */
function streamedBranch(model: SchemaModel): string[] {
  const method = model.methods.find((m) => m.name === UPDATE_METHOD);
  if (method === undefined) return [];
  const value = method.paramsOptional ? 'value' : 'params';
  return [
    `if (method === ${quote(method.name)}) {`,
    ...(method.paramsOptional ? ['  const value = params === undefined ? {} : params;'] : []),
    `  return checks.${method.params}(${value}) ? { ok: true, value: ${value} } : runValidator<unknown>(VALIDATORS.${method.params}, ${value});`,
    '}',
  ];
}

/**
 * The exported entry points: `validate`, `validateParams`, `validateResult` and the
 * `is<Definition>` guards.
 */
function addEntryPoints(file: SourceFile, model: SchemaModel): void {
  file.addFunction({
    name: 'validate',
    isExported: true,
    docs: [
      {
        description:
          'Validates a value against one definition of the schema; on failure, lists issues with RFC 6901 pointers.',
      },
    ],
    typeParameters: [{ name: 'N', constraint: 'DefinitionName' }],
    parameters: [
      { name: 'name', type: 'N' },
      { name: 'value', type: 'unknown' },
    ],
    returnType: 'ValidationResult<Definitions[N]>',
    statements: 'return run<Definitions[N]>(name, value);',
  });
  for (const [fn, tableName, what] of [
    ['validateParams', 'PARAMS', 'params'],
    ['validateResult', 'RESULTS', 'result'],
  ] as const) {
    file.addFunction({
      name: fn,
      isExported: true,
      docs: [
        {
          description:
            what === 'params'
              ? "Validates the params of a method by its wire name; `undefined` when the schema defines no params for that method. Omitted params (`undefined`) of a method whose params require no property are valid and read as `{}` (JSON-RPC 2.0 lets a request omit `params`): the result's `value` is then `{}`."
              : `Validates the ${what} of a method by its wire name; \`undefined\` when the schema defines no ${what} for that method.`,
        },
      ],
      parameters: [
        { name: 'method', type: 'string' },
        { name: what, type: 'unknown' },
      ],
      returnType: 'ValidationResult<unknown> | undefined',
      statements:
        what === 'params'
          ? [
              ...streamedBranch(model),
              `const definition = ${tableName}.get(method);`,
              'if (definition === undefined) return undefined;',
              `return decide<unknown>(definition.check, definition.validator, ${what} === undefined && OPTIONAL_PARAMS.has(method) ? {} : ${what});`,
            ]
          : [
              `const definition = ${tableName}.get(method);`,
              `return definition === undefined ? undefined : decide<unknown>(definition.check, definition.validator, ${what});`,
            ],
    });
  }
  file.addFunctions(
    model.definitions.map((def) => ({
      name: `is${def.name}`,
      isExported: true,
      docs: [{ description: docText(`True when the value is a valid \`${def.name}\` (full validation).`) }],
      parameters: [{ name: 'value', type: 'unknown' }],
      returnType: `value is ${def.name}`,
      statements: `return checks.${def.name}(value) || VALIDATORS.${def.name}(value);`,
    })),
  );
}

/**
 * Emits `validate.ts`: typed entry points over the fast checks and the standalone validators —
 * `validate`, `validateParams`, `validateResult` and one `is<Definition>` guard per definition.
 * Each entry point decides with the definition's check and asks Ajv only about a value the check
 * rejects, so an accepted value costs one allocation-free check and a rejected one gets Ajv's issues.
 */
export function emitValidateWrapper(model: SchemaModel, options: ValidateWrapperOptions): EmittedFile[] {
  const project = createProject();
  const file = project.createSourceFile('validate.ts');
  const names = model.definitions.map((d) => d.name);
  addImports(file, names, options);
  addRunner(file, names);
  addMethodTables(file, model);
  addEntryPoints(file, model);
  return [{ path: 'validate.ts', contents: printSourceFile(generatedHeader(model), file) }];
}
