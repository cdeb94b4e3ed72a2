import type { TypeToken } from './model.ts';

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The definition name of a local `#/$defs/<Name>` reference. */
export function refName(ref: unknown): string | undefined {
  if (typeof ref !== 'string' || !ref.startsWith('#/$defs/')) return undefined;
  const rest = ref.slice('#/$defs/'.length);
  return rest.includes('/') ? undefined : rest.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** How an open enum's extension branch reads: TypeScript's template literal type for `_`-prefixed strings. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the text shown is a TypeScript type, not a template.
const EXTENSION_STRING = '`_${string}`';

function join(parts: readonly (readonly TypeToken[])[], separator: string): TypeToken[] {
  return parts.flatMap((part, index) => (index === 0 ? [...part] : [{ text: separator }, ...part]));
}

function needsParens(tokens: readonly TypeToken[]): boolean {
  return tokens.some((t) => t.ref === undefined && /[|&]/.test(t.text));
}

function arrayOf(items: unknown): TypeToken[] {
  const inner = isObject(items) ? typeTokens(items) : [{ text: 'unknown' }];
  return needsParens(inner) ? [{ text: '(' }, ...inner, { text: ')[]' }] : [...inner, { text: '[]' }];
}

function oneType(name: string, schema: JsonObject): TypeToken[] {
  if (name === 'array') return arrayOf(schema.items);
  if (name === 'object' && isObject(schema.additionalProperties)) {
    return [{ text: '{ [key: string]: ' }, ...typeTokens(schema.additionalProperties), { text: ' }' }];
  }
  return [{ text: name }];
}

/**
 * Renders a property or definition schema as a compact type expression whose `$ref`s stay
 * links: `ContentBlock[]`, `string | null`, `"user_message"`. Anything it cannot name becomes
 * `unknown` rather than failing the build, so a new schema construct degrades gracefully.
 */
export function typeTokens(schema: JsonObject): TypeToken[] {
  const ref = refName(schema.$ref);
  if (ref !== undefined) return [{ text: ref, ref }];
  if ('const' in schema) return [{ text: JSON.stringify(schema.const) }];
  if (Array.isArray(schema.enum))
    return join(
      schema.enum.map((v) => [{ text: JSON.stringify(v) }]),
      ' | ',
    );
  const parts: TypeToken[][] = [];
  const type = schema.type;
  const types = Array.isArray(type) ? type.map(String) : typeof type === 'string' ? [type] : [];
  for (const name of types) parts.push(oneType(name, schema));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    const rendered = branches.filter(isObject).map((branch) => {
      // An open enum's pattern branch: `_`-prefixed extension values.
      if (
        branch.pattern === '^_' &&
        Object.keys(branch).every((k) => ['pattern', 'type', 'description'].includes(k))
      ) {
        return [{ text: EXTENSION_STRING }];
      }
      return typeTokens(branch);
    });
    if (types.length === 1 && types[0] !== 'array' && types[0] !== 'object') {
      // `{"type": "string", "anyOf": [...]}` narrows the string; show the branches instead.
      parts.splice(0, parts.length);
    }
    parts.push(...rendered);
  }
  if (Array.isArray(schema.allOf)) parts.push(join(schema.allOf.filter(isObject).map(typeTokens), ' & '));
  if (parts.length === 0) return [{ text: isObject(schema.properties) ? 'object' : 'unknown' }];
  return join(parts, ' | ');
}

const CONSTRAINT_KEYS = [
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
  'uniqueItems',
  'default',
] as const;

/** The validation keywords of a schema that a reader should see next to its type. */
export function constraintsOf(schema: JsonObject): string[] {
  const found: string[] = [];
  for (const key of CONSTRAINT_KEYS) {
    if (key in schema) {
      const value = schema[key];
      found.push(`${key} ${typeof value === 'string' ? value : JSON.stringify(value)}`);
    }
  }
  if (isObject(schema.items)) {
    for (const item of constraintsOf(schema.items)) found.push(`items: ${item}`);
  }
  return found;
}

/** Every local definition a schema references, in order of appearance, without duplicates. */
export function referencedDefinitions(schema: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) referencedDefinitions(item, into);
  } else if (isObject(schema)) {
    const ref = refName(schema.$ref);
    if (ref !== undefined) into.add(ref);
    for (const value of Object.values(schema)) referencedDefinitions(value, into);
  }
  return into;
}
