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

const PARITY_DIR = fileURLToPath(new URL('../../../../schema/parity/', import.meta.url));

/**
 * A protocol version whose official schema the official SDK ships: `v1-nes` is the v1 schema of
 * its `experimental/nes` entry (next edit suggestions, shipped as validators only:
 * official-nes.ts turns them into a schema document); `v2-unstable` is v2 with
 * upstream's unstable surface (`schema/v2/schema.unstable.json`), checked against the same
 * canonical schema of ours, whose unstable definitions carry `x-unstable`; `v1-unstable` is the
 * same for v1 (`schema/v1/schema.unstable.json` against our schema/v1).
 */
export type ProtocolVersion = 'v1' | 'v2' | 'v1-unstable' | 'v2-unstable' | 'v1-nes';

/** The folder of a version's schema: `v1` or `v2`, with or without its unstable surface. */
export function schemaDir(version: ProtocolVersion): 'v1' | 'v2' {
  return version.startsWith('v1') ? 'v1' : 'v2';
}

/** schema/parity/[v1-]names.json: official definitions we spell or split differently. */
export interface Counterpart {
  readonly ours: string | null;
  readonly add?: Record<string, unknown>;
  readonly reason: string;
}

/** One deliberate difference, from schema/parity/[v1-]deltas.json. */
export interface Delta {
  /** `official` (official instances rejected by ours) or `ours` (our examples rejected by the official schema). */
  readonly side: 'official' | 'ours';
  /** The definition whose instances differ (official name for `official`, ours for `ours`). */
  readonly definition: string;
  /** The JSON pointer of the difference inside an instance. */
  readonly pointer: string;
  readonly reason: string;
}

/** An official method, read from the `x-method`/`x-side` annotations of its definitions. */
export interface OfficialMethod {
  readonly name: string;
  /**
   * `proxy` for the proxy-chain methods (`x-side: proxy`): sent between a conductor and its
   * proxies, so a counterpart may be `client_to_agent` (the conductor is the proxy's client) or
   * `both`, never `agent_to_client`.
   */
  readonly direction: 'client_to_agent' | 'agent_to_client' | 'both' | 'proxy';
  /** Params of the request form (or of the notification, for a method that is only one). */
  readonly params?: string;
  readonly result?: string;
  /**
   * The same wire name as a notification, when the schema also defines one beside a request
   * (`mcp/message`: a `…Notification` definition with its own `x-side`; `proxy/successor`: one
   * with `x-side: proxy` like its request).
   */
  readonly notification?: { direction: OfficialMethod['direction']; params: string };
}

/** The official schema of one version with our names and deltas for it. */
export interface OfficialParity {
  readonly version: ProtocolVersion;
  /** Whether this is a version's unstable surface (its schema.unstable.json). */
  readonly unstable: boolean;
  /** The official schema file as the official SDK ships it. */
  readonly file: string;
  readonly schema: Schema;
  readonly defs: Record<string, Schema>;
  readonly names: {
    counterparts: Record<string, Counterpart>;
    /** Official methods with no counterpart yet (`ours: null`), each with the reason. */
    methods?: Record<string, { ours: null; reason: string }>;
  };
  readonly deltas: readonly Delta[];
  /** The names and deltas files, as shown in messages. */
  readonly namesFile: string;
  readonly deltasFile: string;
  methods(): OfficialMethod[];
  /** The counterpart of an official definition in our schema (null: none, deliberately). */
  counterpartOf(official: string): string | null;
  /**
   * The tags an official definition gets from the union wrappers that use it: the official schema
   * writes a variant as `{properties: {<tag>: {const}}, allOf: [{$ref: <definition>}]}`, so the
   * definition alone lacks its tag. Followed outwards (an idle state is a state_update session update).
   */
  wrapperTags(official: string): Record<string, unknown>;
}

/** Reads one parity file of schema/parity/. */
function parityFile<T>(name: string): T {
  return JSON.parse(readFileSync(join(PARITY_DIR, name), 'utf8')) as T;
}

type NamesFile = OfficialParity['names'];

/**
 * Loads the official schema of `version` from @agentclientprotocol/sdk and our parity files for it:
 * `schema/parity/names.json` and `deltas.json` for v2, `v1-names.json` and `v1-deltas.json` for v1;
 * for `v2-unstable` the v2 files and, on top of them, `unstable-names.json` and
 * `unstable-deltas.json`, for `v1-unstable` the v1 files and `v1-unstable-names.json` and
 * `v1-unstable-deltas.json` (the official unstable definitions and methods acp-kit does not have yet
 * are listed there with `ours: null`); for `v1-nes`, `given` (official-nes.ts) with `nes-names.json`
 * and `nes-deltas.json` alone.
 */
export function loadOfficialParity(
  version: ProtocolVersion,
  given?: { readonly file: string; readonly schema: Schema },
): OfficialParity {
  const nes = version.endsWith('-nes');
  const unstable = version.endsWith('-unstable') || nes;
  const dir = schemaDir(version);
  const file =
    given?.file ??
    join(packageRoot('@agentclientprotocol/sdk'), `schema/${dir}/schema${unstable ? '.unstable' : ''}.json`);
  const schema = given?.schema ?? (JSON.parse(readFileSync(file, 'utf8')) as Schema);
  const defs = schema.$defs as Record<string, Schema>;
  const stablePrefix = dir === 'v1' ? 'v1-' : '';
  const prefix = nes ? 'nes-' : `${stablePrefix}${unstable ? 'unstable-' : ''}`;
  const namesFile = `schema/parity/${prefix}names.json`;
  const deltasFile = `schema/parity/${prefix}deltas.json`;
  let names = parityFile<NamesFile>(`${prefix}names.json`);
  let deltas = parityFile<{ deltas: Delta[] }>(`${prefix}deltas.json`).deltas;
  if (unstable && !nes) {
    const stable = parityFile<NamesFile>(`${stablePrefix}names.json`);
    names = {
      counterparts: { ...stable.counterparts, ...names.counterparts },
      methods: { ...stable.methods, ...names.methods },
    };
    deltas = [...parityFile<{ deltas: Delta[] }>(`${stablePrefix}deltas.json`).deltas, ...deltas];
  }

  const counterpartOf = (official: string): string | null => {
    const mapped = names.counterparts[official];
    return mapped === undefined ? official : mapped.ours;
  };

  const methods = (): OfficialMethod[] => {
    const byName = new Map<
      string,
      {
        direction?: OfficialMethod['direction'];
        params?: string;
        result?: string;
        notification?: { direction: OfficialMethod['direction']; params: string };
      }
    >();
    const notices: [string, string, OfficialMethod['direction']][] = [];
    for (const [def, s] of Object.entries(defs)) {
      const method = s['x-method'];
      if (typeof method !== 'string') continue;
      const side = s['x-side'];
      const direction =
        side === 'agent'
          ? 'client_to_agent'
          : side === 'client'
            ? 'agent_to_client'
            : side === 'proxy'
              ? 'proxy'
              : 'both';
      if (def.endsWith('Notification')) {
        notices.push([method, def, direction]);
        continue;
      }
      const entry = byName.get(method) ?? {};
      entry.direction ??= direction;
      if (def.endsWith('Response')) entry.result = def;
      else entry.params = def;
      byName.set(method, entry);
    }
    // A notification is a method of its own, or the notification form of a request of the same name.
    for (const [method, def, direction] of notices) {
      const request = byName.get(method);
      if (request === undefined) byName.set(method, { direction, params: def });
      else request.notification = { direction, params: def };
    }
    return [...byName].map(([name, m]) => ({ name, ...m, direction: m.direction ?? 'both' }));
  };

  const wrapperTags = (official: string, seen = new Set<string>()): Record<string, unknown> => {
    if (seen.has(official)) return {};
    seen.add(official);
    for (const [parent, s] of Object.entries(defs)) {
      const branches = [s.anyOf, s.oneOf].flatMap((b) => (Array.isArray(b) ? (b as Schema[]) : []));
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
  };

  return {
    version,
    unstable,
    file,
    schema,
    defs,
    names,
    deltas,
    namesFile,
    deltasFile,
    methods,
    counterpartOf,
    wrapperTags: (official) => wrapperTags(official),
  };
}
