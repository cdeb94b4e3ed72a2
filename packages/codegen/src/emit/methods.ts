import { VariableDeclarationKind, type WriterFunction } from 'ts-morph';
import type { MethodModel, SchemaModel } from '../model/model.js';
import { type EmittedFile, generatedHeader } from './emitted-file.js';
import { createProject, docText, printSourceFile, quote } from './ts-project.js';

/** Which type maps a method belongs to, from the receiver's side. */
function receivers(method: Pick<MethodModel, 'direction'>): { agent: boolean; client: boolean } {
  return {
    agent: method.direction === 'client_to_agent' || method.direction === 'both',
    client: method.direction === 'agent_to_client' || method.direction === 'both',
  };
}

/** Every notification a side receives: the notification methods and requests' notification forms. */
function notificationsOf(
  model: SchemaModel,
): { name: string; direction: MethodModel['direction']; params: string; description: string }[] {
  return model.methods.flatMap((m) => {
    if (m.kind === 'notification') return [m];
    return m.notification === undefined ? [] : [{ name: m.name, ...m.notification }];
  });
}

function methodInfoLiteral(method: MethodModel): WriterFunction {
  return (writer) => {
    writer.inlineBlock(() => {
      writer.writeLine(`name: ${quote(method.name)},`);
      writer.writeLine(`direction: ${quote(method.direction)},`);
      writer.writeLine(`kind: ${quote(method.kind)},`);
      writer.writeLine(`params: ${quote(method.params)},`);
      writer.writeLine(`paramsOptional: ${method.paramsOptional},`);
      if (method.result !== undefined) writer.writeLine(`result: ${quote(method.result)},`);
      writer.writeLine(`description: ${quote(method.description)},`);
      const form = method.notification;
      if (form !== undefined) {
        writer.write('notification: ').inlineBlock(() => {
          writer.writeLine(`direction: ${quote(form.direction)},`);
          writer.writeLine(`params: ${quote(form.params)},`);
          writer.writeLine(`description: ${quote(form.description)},`);
        });
        writer.write(',').newLine();
      }
    });
  };
}

/**
 * Emits `methods.ts`: the `Method` constants, the `METHODS` table and the four receiver-side
 * type maps, all derived from `x-methods`.
 */
export function emitMethods(model: SchemaModel): EmittedFile[] {
  const project = createProject();
  const file = project.createSourceFile('methods.ts');
  const used = new Set<string>(['DefinitionName']);
  for (const m of model.methods) {
    used.add(m.params);
    if (m.result !== undefined) used.add(m.result);
    if (m.notification !== undefined) used.add(m.notification.params);
  }
  file.addImportDeclaration({
    isTypeOnly: true,
    moduleSpecifier: './types.js',
    namedImports: [...used].sort(),
  });

  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [{ description: 'Wire names of every method in the schema, by PascalCase constant.' }],
    declarations: [
      {
        name: 'Method',
        initializer: (writer) => {
          writer.inlineBlock(() => {
            for (const m of model.methods) {
              writer.writeLine(`/** ${docText(m.description)} */`);
              writer.writeLine(`${m.constName}: ${quote(m.name)},`);
            }
          });
          writer.write(' as const');
        },
      },
    ],
  });
  file.addTypeAlias({
    name: 'MethodName',
    isExported: true,
    docs: [{ description: 'The wire name of a method defined by the schema.' }],
    type: '(typeof Method)[keyof typeof Method]',
  });
  file.addInterface({
    name: 'MethodInfo',
    isExported: true,
    docs: [{ description: 'What the schema says about one method.' }],
    properties: [
      { name: 'name', isReadonly: true, type: 'MethodName', docs: ['The wire name.'] },
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
      { name: 'params', isReadonly: true, type: 'DefinitionName', docs: ['Definition of its params.'] },
      {
        name: 'paramsOptional',
        isReadonly: true,
        type: 'boolean',
        docs: [
          'True when its params require no property: a request may then omit `params` (JSON-RPC 2.0 allows it), and `validateParams` reads the omission as `{}`.',
        ],
      },
      {
        name: 'result',
        isReadonly: true,
        hasQuestionToken: true,
        type: 'DefinitionName',
        docs: ['Definition of its result (requests only).'],
      },
      { name: 'description', isReadonly: true, type: 'string', docs: ['What it is for.'] },
      {
        name: 'notification',
        isReadonly: true,
        hasQuestionToken: true,
        type: "{ readonly direction: 'client_to_agent' | 'agent_to_client' | 'both'; readonly params: DefinitionName; readonly description: string }",
        docs: [
          'The same wire name also sent as a notification (a request only; `mcp/message` the other way, `proxy/successor` both ways): its direction, params and purpose.',
        ],
      },
    ],
  });
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [{ description: 'Every method of the schema, in schema order.' }],
    declarations: [
      {
        name: 'METHODS',
        type: 'readonly MethodInfo[]',
        initializer: (writer) => {
          writer.write('[');
          writer.indent(() => {
            for (const m of model.methods) {
              methodInfoLiteral(m)(writer);
              writer.write(',').newLine();
            }
          });
          writer.write(']');
        },
      },
    ],
  });

  const requestMap = (side: 'agent' | 'client', description: string) =>
    file.addInterface({
      name: side === 'agent' ? 'AgentRequestMap' : 'ClientRequestMap',
      isExported: true,
      docs: [{ description }],
      properties: model.methods
        .filter((m) => m.kind === 'request' && receivers(m)[side])
        .map((m) => ({
          name: quote(m.name),
          docs: [docText(m.description)],
          type: `{ params: ${m.params}; result: ${m.result ?? 'unknown'} }`,
        })),
    });
  const notificationMap = (side: 'agent' | 'client', description: string) =>
    file.addInterface({
      name: side === 'agent' ? 'AgentNotificationMap' : 'ClientNotificationMap',
      isExported: true,
      docs: [{ description }],
      properties: notificationsOf(model)
        .filter((m) => receivers(m)[side])
        .map((m) => ({ name: quote(m.name), docs: [docText(m.description)], type: m.params })),
    });
  requestMap('agent', 'Requests an agent handles, by method name: their params and result types.');
  requestMap('client', 'Requests a client handles, by method name: their params and result types.');
  notificationMap('agent', 'Notifications an agent receives, by method name: their params type.');
  notificationMap('client', 'Notifications a client receives, by method name: their params type.');

  return [{ path: 'methods.ts', contents: printSourceFile(generatedHeader(model), file) }];
}
