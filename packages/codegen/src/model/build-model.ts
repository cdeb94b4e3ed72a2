import { pointerTokens, resolveCapabilityPointer } from '../load/capability-pointer.js';
import { classifyBranch, isAnyStringBranch } from '../load/conventions.js';
import type { LoadedSchema } from '../load/load-schema.js';
import { type JsonObject, type JsonValue, defNameOfRef, isJsonObject, pointerOf } from '../json.js';
import type {
  DefinitionModel,
  DiscriminatedUnionModel,
  MethodCapabilityModel,
  MethodDirection,
  MethodKind,
  MethodModel,
  OpenEnumModel,
  PropertyModel,
  SchemaModel,
  UnionVariant,
} from './model.js';

/** `session/request_permission` → `SessionRequestPermission`, `$/cancel_request` → `CancelRequest`. */
export function methodConstName(method: string): string {
  return method
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== '')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

function describe(schema: JsonObject): string {
  return typeof schema.description === 'string' ? schema.description : '';
}

function buildDefinition(name: string, schema: JsonObject): DefinitionModel {
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const properties: PropertyModel[] = isJsonObject(schema.properties)
    ? Object.entries(schema.properties).flatMap(([prop, propSchema]) =>
        isJsonObject(propSchema)
          ? [
              {
                name: prop,
                description: describe(propSchema),
                required: required.has(prop),
                schema: propSchema,
              },
            ]
          : [],
      )
    : [];
  return { name, description: describe(schema), pointer: pointerOf('$defs', name), schema, properties };
}

function buildUnion(
  defs: JsonObject,
  name: string,
  schema: JsonObject,
  tag: string,
): DiscriminatedUnionModel {
  const variants: UnionVariant[] = [];
  let extension: string | undefined;
  let acceptsUnknown = false;
  for (const branch of Array.isArray(schema.oneOf) ? schema.oneOf : []) {
    const ref = isJsonObject(branch) ? defNameOfRef(branch.$ref) : undefined;
    if (ref === undefined) throw new Error(`$defs/${name}: union branch is not a local $ref`);
    const shape = classifyBranch(defs, ref, tag);
    if (shape.kind === 'invalid') throw new Error(`$defs/${name}: ${shape.reason}`);
    if (shape.kind === 'extension' || shape.kind === 'unknown') {
      extension = ref;
      acceptsUnknown = shape.kind === 'unknown';
    } else variants.push({ kind: shape.kind, definition: ref, tagValue: shape.tagValue });
  }
  const base = { name, tag, description: describe(schema), variants, acceptsUnknown };
  return extension === undefined ? base : { ...base, extension };
}

function buildOpenEnum(name: string, schema: JsonObject): OpenEnumModel {
  const [first, second] = Array.isArray(schema.anyOf) ? schema.anyOf : [];
  const known =
    isJsonObject(first) && Array.isArray(first.enum) ? first.enum.filter((v) => typeof v === 'string') : [];
  const acceptsUnknown = isJsonObject(second) && isAnyStringBranch(second);
  return { name, description: describe(schema), known, acceptsUnknown };
}

/**
 * Whether a definition requires no property, so that `{}` stands for an omitted `params`: an
 * object schema without `required`, a `$ref` to one, or an `allOf` whose parts all are. Anything
 * else (a union, a schema of another type) counts as requiring something.
 */
export function requiresNoProperty(
  defs: JsonObject,
  name: string,
  seen: ReadonlySet<string> = new Set(),
): boolean {
  const schema = defs[name];
  if (!isJsonObject(schema) || seen.has(name)) return false;
  const inner = new Set(seen).add(name);
  const noneRequired = (part: JsonValue): boolean => {
    if (!isJsonObject(part)) return false;
    const ref = defNameOfRef(part.$ref);
    if (ref !== undefined) return requiresNoProperty(defs, ref, inner);
    if (part.oneOf !== undefined || part.anyOf !== undefined) return false;
    if (Array.isArray(part.required) && part.required.length > 0) return false;
    if (Array.isArray(part.allOf) && !part.allOf.every(noneRequired)) return false;
    return part.type === 'object' || (part.type === undefined && Array.isArray(part.allOf));
  };
  return noneRequired(schema);
}

function buildMethods(schema: JsonObject): MethodModel[] {
  const methods = isJsonObject(schema['x-methods']) ? schema['x-methods'] : {};
  const defs = isJsonObject(schema.$defs) ? schema.$defs : {};
  const seen = new Map<string, string>();
  return Object.entries(methods).flatMap(([name, info]) => {
    if (!isJsonObject(info)) return [];
    const constName = methodConstName(name);
    const clash = seen.get(constName);
    if (clash !== undefined)
      throw new Error(`methods ${clash} and ${name} both map to the constant ${constName}`);
    seen.set(constName, name);
    const base = {
      name,
      constName,
      direction: info.direction as MethodDirection,
      kind: info.kind as MethodKind,
      params: String(info.params),
      paramsOptional: requiresNoProperty(defs, String(info.params)),
      description: describe(info),
    };
    const withResult = typeof info.result === 'string' ? { ...base, result: info.result } : base;
    const capability = buildCapability(schema, info.capability);
    const gated = capability === undefined ? withResult : { ...withResult, capability };
    const form = info.notification;
    if (!isJsonObject(form)) return [gated];
    const notification = {
      direction: form.direction as MethodDirection,
      params: String(form.params),
      description: describe(form),
    };
    return [{ ...gated, notification }];
  });
}

function buildCapability(
  schema: JsonObject,
  capability: JsonValue | undefined,
): MethodCapabilityModel | undefined {
  if (!isJsonObject(capability)) return undefined;
  const definition = String(capability.in);
  const pointer = String(capability.pointer);
  const initialize = isJsonObject(schema['x-methods']) ? schema['x-methods'].initialize : undefined;
  const atInitialize =
    isJsonObject(initialize) && (definition === initialize.params || definition === initialize.result);
  const defs = isJsonObject(schema.$defs) ? schema.$defs : {};
  const target = resolveCapabilityPointer(defs, definition, pointer);
  return {
    in: definition,
    pointer,
    path: pointerTokens(pointer) ?? [],
    valueType: 'valueType' in target ? target.valueType : 'unknown',
    atInitialize,
    description: describe(capability),
  };
}

/** Builds the normalized model from a loaded (already checked) schema. */
export function buildModel(loaded: LoadedSchema): SchemaModel {
  const { schema } = loaded;
  const defs = isJsonObject(schema.$defs) ? schema.$defs : {};
  const definitions: DefinitionModel[] = [];
  const unions: DiscriminatedUnionModel[] = [];
  const openEnums: OpenEnumModel[] = [];
  for (const [name, def] of Object.entries(defs)) {
    if (!isJsonObject(def)) continue;
    definitions.push(buildDefinition(name, def));
    const tag = def['x-discriminator'];
    if (typeof tag === 'string') unions.push(buildUnion(defs, name, def, tag));
    if (def['x-open-enum'] === true) openEnums.push(buildOpenEnum(name, def));
  }
  const base = { source: loaded.file, schema, definitions, unions, openEnums, methods: buildMethods(schema) };
  return typeof schema.$id === 'string' ? { ...base, id: schema.$id } : base;
}
