import {
  METHOD_CAPABILITIES,
  type MethodCapability,
  type MethodGate as MethodGateRow,
  type MethodName,
} from '@acp-kit/schema';

/** A JSON object. */
export type Json = Record<string, unknown>;

/** The definition the agent's own initialize-time capabilities live in (`initialize`'s result). */
export const AGENT_ADVERTISES_IN = 'InitializeResponse';
/** The definition a client's capabilities live in (`initialize`'s params). */
export const CLIENT_ADVERTISES_IN = 'InitializeRequest';

/** Whether `value` is a JSON object (not null, not an array). */
export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at a capability's path within `source` (undefined where the path stops). */
export function valueAt(source: unknown, path: readonly string[]): unknown {
  let node = source;
  for (const token of path) {
    if (!isObject(node)) return undefined;
    node = node[token];
  }
  return node;
}

/**
 * Whether `source` (an instance of `capability.in`: an initialize message, a tool call, a
 * terminal) advertises the capability: the value at its path is present and is not `null`,
 * `false` or an empty array.
 */
export function isAdvertised(source: unknown, capability: MethodCapability): boolean {
  const value = valueAt(source, capability.path);
  if (value === undefined || value === null || value === false) return false;
  return !(Array.isArray(value) && value.length === 0);
}

/** The gating row of a schema method, or undefined for a method the schema does not define. */
export function rowOf(method: string): MethodGateRow | undefined {
  return Object.hasOwn(METHOD_CAPABILITIES, method)
    ? (METHOD_CAPABILITIES[method as MethodName] as MethodGateRow)
    : undefined;
}

/** Sets the value at `path`, replacing absent or null parents with objects. */
export function setAt(root: Json, path: readonly string[], value: unknown): void {
  let node = root;
  for (const token of path.slice(0, -1)) {
    if (!isObject(node[token])) node[token] = {};
    node = node[token] as Json;
  }
  node[path[path.length - 1]!] = value;
}

/** Removes the value at `path`, if there is one. */
export function deleteAt(root: Json, path: readonly string[]): void {
  const parent = valueAt(root, path.slice(0, -1));
  if (isObject(parent)) delete parent[path[path.length - 1]!];
}
