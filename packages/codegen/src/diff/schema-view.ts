import { type JsonObject, type JsonValue, defNameOfRef, isJsonObject } from '../json.js';
import { buildModel, requiresNoProperty } from '../model/build-model.js';
import type { MethodDirection, MethodKind, SchemaModel } from '../model/model.js';
import type { Party, SchemaConventions } from './change.js';

/** A method as the diff sees it, from `x-methods` or from the official `x-method`/`x-side` annotations. */
export interface DiffMethod {
  readonly name: string;
  readonly direction: MethodDirection;
  readonly kind: MethodKind;
  readonly params?: string;
  readonly result?: string;
  /** `in` + `pointer` of the gating capability, e.g. `InitializeResponse#/capabilities/session/delete`. */
  readonly capability?: string;
  /** Where the method is declared. */
  readonly pointer: string;
}

/** A discriminated union's tag and whether it keeps unknown tags. */
export interface DiffUnion {
  readonly tag: string;
  /** The branch definition that takes unknown tags, if any. */
  readonly catchAll?: string;
}

/** One schema, read for diffing: the model where our conventions hold, the raw schema always. */
export interface SchemaView {
  readonly label: string;
  readonly schema: JsonObject;
  readonly defs: JsonObject;
  readonly model?: SchemaModel;
  readonly methods: ReadonlyMap<string, DiffMethod>;
  readonly unions: ReadonlyMap<string, DiffUnion>;
  readonly openEnums: ReadonlySet<string>;
  /** Per definition, the parties that send its instances (absent: no method reaches it). */
  readonly senders: ReadonlyMap<string, ReadonlySet<Party>>;
  readonly conventions: SchemaConventions;
}

const CALLER: Record<MethodDirection, readonly Party[]> = {
  client_to_agent: ['client'],
  agent_to_client: ['agent'],
  both: ['client', 'agent'],
};
const CALLEE: Record<MethodDirection, readonly Party[]> = {
  client_to_agent: ['agent'],
  agent_to_client: ['client'],
  both: ['client', 'agent'],
};

/** The parties that send a method's params (the caller). */
export function callers(direction: MethodDirection): readonly Party[] {
  return CALLER[direction];
}

/** The parties that receive a method's params and send its result (the callee). */
export function callees(direction: MethodDirection): readonly Party[] {
  return CALLEE[direction];
}

/** `x-methods` as written, for a schema whose model cannot be built (it breaks a convention elsewhere). */
function rawMethods(schema: JsonObject): SchemaModel['methods'] {
  const list = isJsonObject(schema['x-methods']) ? Object.entries(schema['x-methods']) : [];
  return list.flatMap(([name, info]) => {
    if (!isJsonObject(info)) return [];
    const cap = isJsonObject(info.capability) ? info.capability : undefined;
    return [
      {
        name,
        constName: name,
        direction: (['client_to_agent', 'agent_to_client', 'both'].includes(String(info.direction))
          ? info.direction
          : 'both') as MethodDirection,
        kind: (info.kind === 'notification' ? 'notification' : 'request') as MethodKind,
        params: String(info.params),
        paramsOptional: requiresNoProperty(
          isJsonObject(schema.$defs) ? schema.$defs : {},
          String(info.params),
        ),
        ...(typeof info.result === 'string' ? { result: info.result } : {}),
        description: '',
        ...(cap === undefined
          ? {}
          : {
              capability: {
                in: String(cap.in),
                pointer: String(cap.pointer),
                path: [],
                valueType: 'unknown',
                atInitialize: false,
                description: '',
              },
            }),
      },
    ];
  });
}

function ourMethods(list: SchemaModel['methods']): Map<string, DiffMethod> {
  const methods = new Map<string, DiffMethod>();
  for (const m of list) {
    const pointer = `/x-methods/${m.name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    methods.set(m.name, {
      name: m.name,
      direction: m.direction,
      kind: m.kind,
      params: m.params,
      ...(m.result === undefined ? {} : { result: m.result }),
      ...(m.capability === undefined ? {} : { capability: `${m.capability.in}#${m.capability.pointer}` }),
      pointer,
    });
  }
  return methods;
}

/**
 * The official schema has no `x-methods`: each request, response and notification definition carries
 * `x-method` (the wire name) and `x-side` (the side that serves it: `agent`, `client` or `protocol`).
 */
function annotatedMethods(defs: JsonObject): Map<string, DiffMethod> {
  const grouped = new Map<string, { side: string; params?: string; result?: string; pointer: string }>();
  for (const [name, def] of Object.entries(defs)) {
    if (!isJsonObject(def) || typeof def['x-method'] !== 'string') continue;
    const method = def['x-method'];
    const entry = grouped.get(method) ?? {
      side: String(def['x-side'] ?? 'protocol'),
      pointer: `/$defs/${name}/x-method`,
    };
    if (name.endsWith('Response')) entry.result = name;
    else {
      entry.params = name;
      entry.pointer = `/$defs/${name}/x-method`;
    }
    grouped.set(method, entry);
  }
  const methods = new Map<string, DiffMethod>();
  for (const [name, e] of grouped) {
    const direction: MethodDirection =
      e.side === 'agent' ? 'client_to_agent' : e.side === 'client' ? 'agent_to_client' : 'both';
    methods.set(name, {
      name,
      direction,
      kind: e.result === undefined ? 'notification' : 'request',
      ...(e.params === undefined ? {} : { params: e.params }),
      ...(e.result === undefined ? {} : { result: e.result }),
      pointer: e.pointer,
    });
  }
  return methods;
}

/** Every local definition a schema node references, directly or through nested keywords. */
export function referencedDefinitions(node: JsonValue, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(node)) for (const item of node) referencedDefinitions(item, into);
  else if (isJsonObject(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref') {
        const name = defNameOfRef(value);
        if (name !== undefined) into.add(name);
      } else referencedDefinitions(value, into);
    }
  }
  return into;
}

function sendersOf(defs: JsonObject, methods: ReadonlyMap<string, DiffMethod>): Map<string, Set<Party>> {
  const senders = new Map<string, Set<Party>>();
  const refs = new Map<string, Set<string>>();
  const refsOf = (name: string): Set<string> => {
    let found = refs.get(name);
    if (found === undefined) {
      found = referencedDefinitions(defs[name] ?? null);
      refs.set(name, found);
    }
    return found;
  };
  const mark = (root: string | undefined, parties: readonly Party[]): void => {
    if (root === undefined) return;
    const queue = [root];
    while (queue.length > 0) {
      const name = queue.pop()!;
      if (!(name in defs)) continue;
      const set = senders.get(name) ?? new Set<Party>();
      const before = set.size;
      for (const p of parties) set.add(p);
      senders.set(name, set);
      if (set.size === before && before > 0) continue;
      queue.push(...refsOf(name));
    }
  };
  for (const m of methods.values()) {
    mark(m.params, callers(m.direction));
    mark(m.result, callees(m.direction));
  }
  return senders;
}

function safeModel(label: string, schema: JsonObject): SchemaModel | undefined {
  try {
    return buildModel({ path: label, file: label, schema });
  } catch {
    return undefined;
  }
}

/** Reads a schema for diffing. Our conventions are used where present; otherwise generic JSON Schema rules apply. */
export function schemaView(label: string, schema: JsonObject): SchemaView {
  const defs = isJsonObject(schema.$defs) ? schema.$defs : {};
  const model = safeModel(label, schema);
  const hasXMethods = isJsonObject(schema['x-methods']);
  const methods = hasXMethods ? ourMethods(model?.methods ?? rawMethods(schema)) : annotatedMethods(defs);
  const unions = new Map<string, DiffUnion>();
  for (const u of model?.unions ?? [])
    unions.set(u.name, u.extension === undefined ? { tag: u.tag } : { tag: u.tag, catchAll: u.extension });
  const openEnums = new Set((model?.openEnums ?? []).map((e) => e.name));
  const conventions: SchemaConventions = {
    methods: hasXMethods ? 'x-methods' : methods.size > 0 ? 'x-method' : 'none',
    discriminators: unions.size > 0,
    openEnums: openEnums.size > 0,
    capabilities: [...methods.values()].some((m) => m.capability !== undefined),
  };
  const view = {
    label,
    schema,
    defs,
    methods,
    unions,
    openEnums,
    senders: sendersOf(defs, methods),
    conventions,
  };
  return model === undefined ? view : { ...view, model };
}
