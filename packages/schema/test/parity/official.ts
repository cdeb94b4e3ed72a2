import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

type Schema = { [key: string]: unknown };

/** The root of an installed package, found from its main entry. */
function packageRoot(name: string): string {
  let dir = dirname(createRequire(import.meta.url).resolve(name));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string };
      if (pkg.name === name) return dir;
    } catch {
      // no package.json here; keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the root of ${name}`);
    dir = parent;
  }
}

/** The official stable v2 schema as the official SDK ships it. */
export const OFFICIAL_FILE = join(packageRoot('@agentclientprotocol/sdk'), 'schema/v2/schema.json');
export const OFFICIAL = JSON.parse(readFileSync(OFFICIAL_FILE, 'utf8')) as Schema;
export const OFFICIAL_DEFS = OFFICIAL.$defs as Record<string, Schema>;

const PARITY_DIR = fileURLToPath(new URL('../../../../schema/parity/', import.meta.url));

/** schema/parity/names.json: official definitions we spell or split differently. */
export interface Counterpart {
  readonly ours: string | null;
  readonly add?: Record<string, unknown>;
  readonly reason: string;
}
export const NAMES = JSON.parse(readFileSync(join(PARITY_DIR, 'names.json'), 'utf8')) as {
  counterparts: Record<string, Counterpart>;
};

/** One deliberate difference, from schema/parity/deltas.json. */
export interface Delta {
  /** `official` (official instances rejected by ours) or `ours` (our examples rejected by the official schema). */
  readonly side: 'official' | 'ours';
  /** The definition whose instances differ (official name for `official`, ours for `ours`). */
  readonly definition: string;
  /** The JSON pointer of the difference inside an instance. */
  readonly pointer: string;
  readonly reason: string;
}
export const DELTAS = (
  JSON.parse(readFileSync(join(PARITY_DIR, 'deltas.json'), 'utf8')) as { deltas: Delta[] }
).deltas;

/** An official method, read from the `x-method`/`x-side` annotations of its definitions. */
export interface OfficialMethod {
  readonly name: string;
  readonly direction: 'client_to_agent' | 'agent_to_client' | 'both';
  readonly params?: string;
  readonly result?: string;
}

export function officialMethods(): OfficialMethod[] {
  const byName = new Map<
    string,
    { direction: OfficialMethod['direction']; params?: string; result?: string }
  >();
  for (const [def, schema] of Object.entries(OFFICIAL_DEFS)) {
    const method = schema['x-method'];
    if (typeof method !== 'string') continue;
    const side = schema['x-side'];
    const direction = side === 'agent' ? 'client_to_agent' : side === 'client' ? 'agent_to_client' : 'both';
    const entry = byName.get(method) ?? { direction };
    if (def.endsWith('Response')) entry.result = def;
    else entry.params = def;
    byName.set(method, entry);
  }
  return [...byName].map(([name, m]) => ({ name, ...m }));
}

/** The counterpart of an official definition in our schema (null: none, deliberately). */
export function counterpartOf(official: string): string | null {
  const mapped = NAMES.counterparts[official];
  return mapped === undefined ? official : mapped.ours;
}

/**
 * The tags an official definition gets from the union wrappers that use it: the official schema
 * writes a variant as `{properties: {<tag>: {const}}, allOf: [{$ref: <definition>}]}`, so the
 * definition alone lacks its tag. Followed outwards (an idle state is a state_update session update).
 */
export function wrapperTags(official: string, seen = new Set<string>()): Record<string, unknown> {
  if (seen.has(official)) return {};
  seen.add(official);
  for (const [parent, schema] of Object.entries(OFFICIAL_DEFS)) {
    const branches = [schema.anyOf, schema.oneOf].flatMap((b) => (Array.isArray(b) ? (b as Schema[]) : []));
    for (const branch of branches) {
      const inner = Array.isArray(branch.allOf) ? (branch.allOf[0] as Schema | undefined) : undefined;
      if (inner?.$ref !== `#/$defs/${official}`) continue;
      const props = (branch.properties ?? {}) as Record<string, Schema>;
      const own = Object.fromEntries(
        Object.entries(props).flatMap(([k, v]) => ('const' in v ? [[k, v.const]] : [])),
      );
      if (Object.keys(own).length === 0) continue;
      return { ...wrapperTags(parent, seen), ...own };
    }
  }
  return {};
}
