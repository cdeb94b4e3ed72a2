import { type JsonObject, type JsonValue, isJsonObject } from '../json.js';
import type { SchemaModel } from '../model/model.js';
import { type EmittedFile, generatedHeader } from './emitted-file.js';
import { type FunctionDeclarationStructure, type StatementStructures, StructureKind } from 'ts-morph';
import { createProject, printSourceFile } from './ts-project.js';
import { VALIDATOR_SCHEMA_ID, lengthLimitsIgnoreSurrogates, validatorSchema } from './validator-schema.js';

/** Keywords that never change a verdict here (annotations, and formats, which are not validated). */
const IGNORED = new Set([
  '$id',
  '$comment',
  'title',
  'description',
  'examples',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  'format',
  'contentEncoding',
  'contentMediaType',
]);

/** Keywords the check compiler understands; a definition using any other falls back to Ajv. */
const SUPPORTED = new Set([
  'type',
  '$ref',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'enum',
  'const',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'anyOf',
  'allOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'discriminator',
]);

/** Sets and regular expressions at module level are built once; from this many values on, an enum is a Set. */
const SET_THRESHOLD = 5;

class Unsupported extends Error {}

/**
 * What the code around a schema has already established about the value: inside a union's case,
 * the value is an object whose tag holds that case's string, so the branch need not re-check either.
 */
interface Facts {
  readonly object?: boolean;
  readonly tag?: { readonly name: string; readonly value: string };
}

type Primitive = string | number | boolean | null;

function isPrimitive(value: JsonValue): value is Primitive {
  return value === null || typeof value !== 'object';
}

function literal(value: Primitive): string {
  return JSON.stringify(value);
}

function isIdentifier(name: string): boolean {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name);
}

function member(variable: string, name: string): string {
  return isIdentifier(name) ? `${variable}.${name}` : `${variable}[${JSON.stringify(name)}]`;
}

const TYPE_TESTS: Record<string, (v: string) => string> = {
  object: (v) => `(${v} !== null && typeof ${v} === 'object' && !Array.isArray(${v}))`,
  array: (v) => `Array.isArray(${v})`,
  string: (v) => `typeof ${v} === 'string'`,
  // Ajv's numbers are finite (strictNumbers); its integers also have no fractional part.
  number: (v) => `(typeof ${v} === 'number' && Number.isFinite(${v}))`,
  integer: (v) => `Number.isInteger(${v})`,
  boolean: (v) => `typeof ${v} === 'boolean'`,
  null: (v) => `${v} === null`,
};

/** The instance type each group of keywords applies to (JSON Schema ignores them for other types). */
const OBJECT_KEYWORDS = ['properties', 'required', 'additionalProperties'];
const ARRAY_KEYWORDS = ['items', 'minItems', 'maxItems'];
const STRING_KEYWORDS = ['minLength', 'maxLength', 'pattern'];
const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'];

function refName(ref: JsonValue): string {
  if (typeof ref !== 'string' || !ref.startsWith('#/$defs/')) throw new Unsupported(`$ref ${String(ref)}`);
  const name = ref.slice('#/$defs/'.length);
  if (name.includes('/') || name.includes('~')) throw new Unsupported(`$ref ${ref}`);
  return name;
}

/**
 * Compiles the validator schema into allocation-free boolean checks: one function per definition
 * that reads each property once, switches on a union's tag and checks only that branch, and
 * returns false at the first failure without saying why. Ajv's validators explain failures; a
 * check only decides, and must decide exactly as Ajv does.
 */
class CheckCompiler {
  readonly #constants: string[] = [];
  readonly #constantIds = new Map<string, string>();
  readonly #helpers: { name: string; body: string[] }[] = [];
  #counter = 0;

  readonly #defs: JsonObject;
  readonly #lengthIsCodeUnits: boolean;

  constructor(defs: JsonObject, lengthIsCodeUnits: boolean) {
    this.#defs = defs;
    this.#lengthIsCodeUnits = lengthIsCodeUnits;
  }

  /** Name of the check function of a definition. */
  static checkName(definition: string): string {
    return `check${definition}`;
  }

  /** Module-level constants and helper functions the definition bodies use. */
  get hoisted(): { constants: string[]; helpers: { name: string; body: string[] }[] } {
    return { constants: this.#constants, helpers: this.#helpers };
  }

  /** The body of a definition's check over parameter `v`, or undefined when it needs Ajv. */
  definitionBody(name: string): string[] | undefined {
    const mark = { constants: this.#constants.length, helpers: this.#helpers.length };
    const ids = new Map(this.#constantIds);
    this.#counter = 0;
    try {
      return [...this.#statements(this.#defs[name] ?? true, 'v'), 'return true;'];
    } catch (error) {
      if (!(error instanceof Unsupported)) throw error;
      this.#constants.length = mark.constants;
      this.#helpers.length = mark.helpers;
      this.#constantIds.clear();
      for (const [k, id] of ids) this.#constantIds.set(k, id);
      return undefined;
    }
  }

  #fresh(prefix: string): string {
    this.#counter += 1;
    return `${prefix}${this.#counter}`;
  }

  #constant(kind: string, init: string): string {
    const key = `${kind}:${init}`;
    const known = this.#constantIds.get(key);
    if (known !== undefined) return known;
    const id = `${kind}${this.#constantIds.size}`;
    this.#constantIds.set(key, id);
    this.#constants.push(`const ${id} = ${init};`);
    return id;
  }

  /** A boolean expression for `schema` over `v`: a call for references, else a hoisted helper. */
  #expression(schema: JsonValue, v: string): string {
    if (schema === true) return 'true';
    if (schema === false) return 'false';
    if (!isJsonObject(schema)) throw new Unsupported('schema is not an object');
    const keys = Object.keys(schema).filter((k) => !IGNORED.has(k));
    if (keys.length === 1 && keys[0] === '$ref')
      return `${CheckCompiler.checkName(refName(schema.$ref ?? null))}(${v})`;
    if (keys.length === 1 && keys[0] === 'type' && typeof schema.type === 'string') {
      const test = TYPE_TESTS[schema.type];
      if (test === undefined) throw new Unsupported(`type ${schema.type}`);
      return test(v);
    }
    const saved = this.#counter;
    this.#counter = 0;
    const checks = this.#statements(schema, 'v');
    this.#counter = saved;
    if (checks.length === 0) return 'true';
    const body = [...checks, 'return true;'];
    const init = body.join('\n');
    const existing = this.#helpers.find((h) => h.body.join('\n') === init);
    const name = existing?.name ?? `sub${this.#helpers.length}`;
    if (existing === undefined) this.#helpers.push({ name, body });
    return `${name}(${v})`;
  }

  /** Statements that `return false` when `v` does not satisfy `schema`. */
  #statements(schema: JsonValue, v: string, facts: Facts = {}): string[] {
    if (schema === true) return [];
    if (schema === false) return ['return false;'];
    if (!isJsonObject(schema)) throw new Unsupported('schema is not an object');
    for (const key of Object.keys(schema)) {
      if (!IGNORED.has(key) && !SUPPORTED.has(key)) throw new Unsupported(key);
    }
    if ((schema.then !== undefined || schema.else !== undefined) && schema.if === undefined) {
      // then/else without if are ignored by JSON Schema; not worth a special case here.
      throw new Unsupported('then/else without if');
    }
    const out: string[] = [];
    const types = this.#types(schema.type);
    const knownObject = facts.object === true && types?.length === 1 && types[0] === 'object';
    if (types !== undefined && !knownObject) {
      const tests = types.map((t) => TYPE_TESTS[t]!(v));
      out.push(`if (!(${tests.join(' || ')})) return false;`);
    }
    const only = (family: string[]) =>
      (facts.object === true && family.includes('object')) ||
      types?.every((t) => family.includes(t)) === true;
    const never = (family: string[]) =>
      (facts.object === true && !family.includes('object')) ||
      (types !== undefined && !types.some((t) => family.includes(t)));
    const group = (keywords: string[], family: string[], guard: string, emit: () => string[]) => {
      if (!keywords.some((k) => schema[k] !== undefined) || never(family)) return;
      const body = emit();
      if (body.length === 0) return;
      if (only(family)) out.push(...body);
      else out.push(`if (${guard}) {`, ...body, '}');
    };
    if (schema.const !== undefined) {
      if (!isPrimitive(schema.const)) throw new Unsupported('non-primitive const');
      out.push(`if (${v} !== ${literal(schema.const)}) return false;`);
    }
    if (schema.enum !== undefined) out.push(`if (!(${this.#enumTest(schema.enum, v)})) return false;`);
    group(OBJECT_KEYWORDS, ['object'], TYPE_TESTS.object!(v), () => this.#objectStatements(schema, v, facts));
    group(ARRAY_KEYWORDS, ['array'], TYPE_TESTS.array!(v), () => this.#arrayStatements(schema, v));
    group(STRING_KEYWORDS, ['string'], TYPE_TESTS.string!(v), () => this.#stringStatements(schema, v));
    group(NUMBER_KEYWORDS, ['number', 'integer'], TYPE_TESTS.number!(v), () =>
      this.#numberStatements(schema, v),
    );
    if (schema.$ref !== undefined) {
      out.push(`if (!${CheckCompiler.checkName(refName(schema.$ref))}(${v})) return false;`);
    }
    if (schema.allOf !== undefined) {
      if (!Array.isArray(schema.allOf)) throw new Unsupported('allOf');
      for (const sub of schema.allOf) out.push(...this.#statements(sub, v, facts));
    }
    if (schema.anyOf !== undefined) {
      if (!Array.isArray(schema.anyOf)) throw new Unsupported('anyOf');
      out.push(`if (!(${schema.anyOf.map((s) => this.#expression(s, v)).join(' || ')})) return false;`);
    }
    if (schema.discriminator !== undefined) {
      // The keyword applies to objects only.
      const object = facts.object === true || (types?.length === 1 && types[0] === 'object');
      const body = this.#discriminatorStatements(schema, v);
      out.push(...(object ? body : [`if (${TYPE_TESTS.object!(v)}) {`, ...body, '}']));
    } else if (schema.oneOf !== undefined) {
      if (!Array.isArray(schema.oneOf)) throw new Unsupported('oneOf');
      const count = this.#fresh('n');
      out.push(`let ${count} = 0;`);
      for (const sub of schema.oneOf) out.push(`if (${this.#expression(sub, v)}) ${count} += 1;`);
      out.push(`if (${count} !== 1) return false;`);
    }
    if (schema.not !== undefined) out.push(`if (${this.#expression(schema.not, v)}) return false;`);
    const unionSwitch = this.#unionSwitch(schema, types, v);
    if (unionSwitch !== undefined) out.push(...unionSwitch);
    else if (schema.if !== undefined) {
      const then = schema.then === undefined ? [] : this.#statements(schema.then, v);
      const otherwise = schema.else === undefined ? [] : this.#statements(schema.else, v);
      if (then.length > 0 || otherwise.length > 0) {
        out.push(`if (${this.#expression(schema.if, v)}) {`, ...then, '} else {', ...otherwise, '}');
      }
    }
    return out;
  }

  /**
   * The switch form of a union (see validator-schema.ts): an object with a required tag, `if` the
   * tag is one of the known values `then` a discriminator over exactly those values, `else` the
   * unknown branch. Given the object and the tag, the `if` holds exactly when the tag is known, so
   * one switch does both: known tags check their branch, the default case checks the `else`.
   */
  #unionSwitch(schema: JsonObject, types: string[] | undefined, v: string): string[] | undefined {
    const { if: condition, then, else: otherwise } = schema;
    if (!isJsonObject(condition) || !isJsonObject(then) || types?.length !== 1 || types[0] !== 'object') {
      return undefined;
    }
    if (Object.keys(condition).length !== 1 || !isJsonObject(condition.properties)) return undefined;
    const tags = Object.keys(condition.properties);
    const tag = tags[0];
    if (tags.length !== 1 || tag === undefined) return undefined;
    const known = condition.properties[tag];
    if (!isJsonObject(known) || Object.keys(known).length !== 1 || !Array.isArray(known.enum))
      return undefined;
    if (!Array.isArray(schema.required) || !schema.required.includes(tag)) return undefined;
    const { discriminator, oneOf, type, required, ...rest } = then;
    if (Object.keys(rest).length > 0 || !isJsonObject(discriminator) || discriminator.propertyName !== tag) {
      return undefined;
    }
    if ((type !== undefined && type !== 'object') || !Array.isArray(oneOf)) return undefined;
    if (required !== undefined && (!Array.isArray(required) || required.some((r) => r !== tag)))
      return undefined;
    const switched = new Set(oneOf.flatMap((branch) => this.#tagValues(branch, tag)));
    const listed = new Set(known.enum);
    if (switched.size !== listed.size || [...listed].some((k) => typeof k !== 'string' || !switched.has(k))) {
      return undefined;
    }
    const elseStatements = otherwise === undefined ? [] : this.#statements(otherwise, v, { object: true });
    return this.#discriminatorStatements(then, v, elseStatements);
  }

  #types(type: JsonValue | undefined): string[] | undefined {
    if (type === undefined) return undefined;
    const list = Array.isArray(type) ? type : [type];
    for (const t of list) {
      if (typeof t !== 'string' || TYPE_TESTS[t] === undefined) throw new Unsupported(`type ${String(t)}`);
    }
    return list as string[];
  }

  #enumTest(values: JsonValue, v: string): string {
    if (!Array.isArray(values) || !values.every(isPrimitive)) throw new Unsupported('enum');
    if (values.length === 0) return 'false';
    if (values.length < SET_THRESHOLD) return values.map((x) => `${v} === ${literal(x)}`).join(' || ');
    const set = this.#constant('SET', `new Set([${values.map(literal).join(', ')}])`);
    return `${set}.has(${v})`;
  }

  #objectStatements(schema: JsonObject, v: string, facts: Facts): string[] {
    const out: string[] = [];
    const required = schema.required ?? [];
    if (!Array.isArray(required) || !required.every((r) => typeof r === 'string')) {
      throw new Unsupported('required');
    }
    const unknownRequired = required.filter((r) => r !== facts.tag?.name);
    if (unknownRequired.length > 0) {
      out.push(
        `if (${unknownRequired.map((r) => `${member(v, r)} === undefined`).join(' || ')}) return false;`,
      );
    }
    const properties = schema.properties ?? {};
    if (!isJsonObject(properties)) throw new Unsupported('properties');
    for (const [name, sub] of Object.entries(properties)) {
      if (sub === true) continue;
      if (name === facts.tag?.name && this.#holdsForTag(sub, facts.tag.value)) continue;
      const value = this.#fresh('p');
      const body = this.#statements(sub, value);
      if (body.length === 0) continue;
      out.push(`const ${value} = ${member(v, name)};`);
      if (required.includes(name)) out.push(...body);
      else out.push(`if (${value} !== undefined) {`, ...body, '}');
    }
    const extra = schema.additionalProperties;
    if (extra !== undefined && extra !== true) {
      const names = Object.keys(properties);
      const key = this.#fresh('k');
      const known =
        names.length === 0
          ? 'false'
          : names.length < SET_THRESHOLD
            ? names.map((n) => `${key} === ${JSON.stringify(n)}`).join(' || ')
            : `${this.#constant('SET', `new Set([${names.map((n) => JSON.stringify(n)).join(', ')}])`)}.has(${key})`;
      const body = extra === false ? ['return false;'] : this.#itemStatements(extra, `${v}[${key}]`);
      out.push(`for (const ${key} in ${v}) {`, `if (!(${known})) {`, ...body, '}', '}');
    }
    return out;
  }

  /** True when `schema` is one the tag's known string value certainly satisfies. */
  #holdsForTag(schema: JsonValue, value: string): boolean {
    if (!isJsonObject(schema)) return schema === true;
    const keys = Object.keys(schema).filter((k) => !IGNORED.has(k));
    return keys.every(
      (k) =>
        (k === 'const' && schema.const === value) ||
        (k === 'type' && schema.type === 'string') ||
        (k === 'enum' && Array.isArray(schema.enum) && schema.enum.includes(value)),
    );
  }

  /** Statements for a value read from `access` into a fresh local. */
  #itemStatements(schema: JsonValue, access: string): string[] {
    const value = this.#fresh('x');
    const body = this.#statements(schema, value);
    return body.length === 0 ? [] : [`const ${value} = ${access};`, ...body];
  }

  #arrayStatements(schema: JsonObject, v: string): string[] {
    const out: string[] = [];
    if (schema.minItems !== undefined) {
      if (typeof schema.minItems !== 'number') throw new Unsupported('minItems');
      out.push(`if (${v}.length < ${schema.minItems}) return false;`);
    }
    if (schema.maxItems !== undefined) {
      if (typeof schema.maxItems !== 'number') throw new Unsupported('maxItems');
      out.push(`if (${v}.length > ${schema.maxItems}) return false;`);
    }
    if (schema.items !== undefined) {
      if (Array.isArray(schema.items)) throw new Unsupported('tuple items');
      const index = this.#fresh('i');
      const body = this.#itemStatements(schema.items, `${v}[${index}]`);
      if (body.length > 0)
        out.push(`for (let ${index} = 0; ${index} < ${v}.length; ${index} += 1) {`, ...body, '}');
    }
    return out;
  }

  #stringStatements(schema: JsonObject, v: string): string[] {
    const out: string[] = [];
    for (const [keyword, op] of [
      ['minLength', '<'],
      ['maxLength', '>'],
    ] as const) {
      const limit = schema[keyword];
      if (limit === undefined) continue;
      // Ajv counts code points unless the schema's limits cannot tell them from code units.
      if (typeof limit !== 'number' || !this.#lengthIsCodeUnits) throw new Unsupported(keyword);
      out.push(`if (${v}.length ${op} ${limit}) return false;`);
    }
    if (schema.pattern !== undefined) {
      if (typeof schema.pattern !== 'string') throw new Unsupported('pattern');
      const re = this.#constant('RE', `new RegExp(${JSON.stringify(schema.pattern)}, 'u')`);
      out.push(`if (!${re}.test(${v})) return false;`);
    }
    return out;
  }

  #numberStatements(schema: JsonObject, v: string): string[] {
    const out: string[] = [];
    for (const [keyword, holds] of [
      ['minimum', '>='],
      ['maximum', '<='],
      ['exclusiveMinimum', '>'],
      ['exclusiveMaximum', '<'],
    ] as const) {
      const limit = schema[keyword];
      if (limit === undefined) continue;
      if (typeof limit !== 'number') throw new Unsupported(keyword);
      out.push(`if (!(${v} ${holds} ${limit})) return false;`);
    }
    return out;
  }

  /**
   * Ajv's `discriminator`: the tag must be a string naming one branch, and only that branch is
   * checked. With `otherwise`, any other tag runs those statements instead of failing.
   */
  #discriminatorStatements(schema: JsonObject, v: string, otherwise?: string[]): string[] {
    const discriminator = schema.discriminator;
    if (!isJsonObject(discriminator) || typeof discriminator.propertyName !== 'string') {
      throw new Unsupported('discriminator');
    }
    if (discriminator.mapping !== undefined || !Array.isArray(schema.oneOf)) {
      throw new Unsupported('discriminator mapping');
    }
    const tag = discriminator.propertyName;
    const tagValue = this.#fresh('t');
    const out = [`const ${tagValue} = ${member(v, tag)};`, `switch (${tagValue}) {`];
    const seen = new Set<string>();
    for (const branch of schema.oneOf) {
      const values = this.#tagValues(branch, tag);
      const fresh = values.filter((value) => !seen.has(value));
      if (fresh.length !== values.length) throw new Unsupported('duplicate discriminator value');
      for (const value of fresh) seen.add(value);
      // Several labels share one block: all but the last fall through.
      out.push(
        ...fresh.map((value, i) => `case ${JSON.stringify(value)}:${i === fresh.length - 1 ? ' {' : ''}`),
      );
      // A case with one label knows the tag's value; every case knows the value is an object.
      const facts: Facts =
        fresh.length === 1 ? { object: true, tag: { name: tag, value: fresh[0]! } } : { object: true };
      out.push(...this.#statements(branch, v, facts), 'break;', '}');
    }
    out.push('default: {', ...(otherwise ?? ['return false;']), '}', '}');
    return out;
  }

  /** The tag values one discriminated branch declares, following `$ref`s as Ajv does. */
  #tagValues(branch: JsonValue, tag: string): string[] {
    let schema = branch;
    for (let depth = 0; isJsonObject(schema) && schema.$ref !== undefined && depth < 32; depth += 1) {
      const hasTag = isJsonObject(schema.properties) && schema.properties[tag] !== undefined;
      if (hasTag) break;
      schema = this.#defs[refName(schema.$ref)] ?? false;
    }
    if (!isJsonObject(schema) || !isJsonObject(schema.properties))
      throw new Unsupported('discriminator branch');
    const tagSchema = schema.properties[tag];
    if (!isJsonObject(tagSchema)) throw new Unsupported('discriminator branch tag');
    if (typeof tagSchema.const === 'string') return [tagSchema.const];
    if (Array.isArray(tagSchema.enum) && tagSchema.enum.every((e) => typeof e === 'string')) {
      return tagSchema.enum as string[];
    }
    throw new Unsupported('discriminator branch tag');
  }
}

/**
 * Emits `checks.ts`: one exported boolean check per definition, named like the definition, that
 * decides exactly as the Ajv validator of `validators.ts` does but never allocates or explains.
 * The wrapper runs the check first and asks Ajv only when it fails, to produce the issues.
 * A definition using a keyword the compiler does not know re-exports the Ajv validator instead.
 */
export function emitFastChecks(model: SchemaModel): EmittedFile[] {
  const schema = validatorSchema(model);
  const defs = schema.$defs;
  if (!isJsonObject(defs) || schema.$id !== VALIDATOR_SCHEMA_ID) throw new Error('fast checks: no $defs');
  const compiler = new CheckCompiler(defs, lengthLimitsIgnoreSurrogates(schema));
  const bodies = new Map<string, string[] | undefined>();
  for (const name of Object.keys(defs)) bodies.set(name, compiler.definitionBody(name));
  const exported = new Set(model.definitions.map((d) => d.name));
  const internalFallback = [...bodies].filter(([name, body]) => body === undefined && !exported.has(name));
  if (internalFallback.length > 0) {
    // A validator-only definition (a union's unchecked extension branch) has no Ajv export to call.
    throw new Error(`fast checks: cannot compile ${internalFallback.map(([n]) => n).join(', ')}`);
  }
  const needsAjv = [...bodies.values()].some((body) => body === undefined);
  const { constants, helpers } = compiler.hoisted;
  const fn = (name: string, body: string[] | string): FunctionDeclarationStructure => ({
    kind: StructureKind.Function,
    name,
    parameters: [{ name: 'v' }],
    statements: body,
  });
  // One structure list, one insertion: adding functions one by one re-parses the file each time.
  const statements: (string | StatementStructures)[] = [
    '// @ts-nocheck',
    ...(needsAjv
      ? [
          {
            kind: StructureKind.ImportDeclaration,
            moduleSpecifier: './validators.js',
            namespaceImport: 'ajv',
          } as const,
        ]
      : []),
    ...constants,
    ...helpers.map((helper) => fn(helper.name, helper.body)),
    ...[...bodies].map(([name, body]) => fn(CheckCompiler.checkName(name), body ?? `return ajv.${name}(v);`)),
    {
      kind: StructureKind.ExportDeclaration,
      namedExports: model.definitions.map((d) => ({ name: CheckCompiler.checkName(d.name), alias: d.name })),
    },
  ];
  const file = createProject().createSourceFile('checks.ts', { statements });
  return [{ path: 'checks.ts', contents: printSourceFile(generatedHeader(model), file) }];
}
