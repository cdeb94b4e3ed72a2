import type { JsonValue } from '../json.js';
import { quote } from './ts-project.js';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property name as an object-literal key (quoted unless it is an identifier). */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** The expression reading one property of the converted `value`. */
export function access(name: string): string {
  return IDENTIFIER.test(name) ? `value.${name}` : `value[${JSON.stringify(name)}]`;
}

/** A JSON value as TypeScript source; strings single-quoted like the rest of the generated code. */
export function literal(value: JsonValue): string {
  if (typeof value === 'string') return quote(value);
  return JSON.stringify(value);
}
