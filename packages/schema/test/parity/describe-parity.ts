import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { loadOfficialParity, type OfficialMethod, type ProtocolVersion, schemaDir } from './official.js';
import { Sampler } from './sampler.js';

type Json = { [key: string]: unknown };

/** What the parity suite needs from our side of one version. */
export interface ParitySubject {
  readonly version: ProtocolVersion;
  /** Our canonical schema of that version, parsed. */
  readonly ours: Json;
  /** Our example files: the definition each belongs to, a label and the parsed value. */
  readonly examples: readonly { definition: string; label: string; value: unknown }[];
  /** Our generated validator for that version. */
  validate(
    definition: string,
    value: unknown,
  ): { ok: true } | { ok: false; issues: readonly { pointer: string; message: string }[] };
  /** The least number of our examples that must have an official counterpart to check against. */
  readonly minExamplesChecked: number;
  /** The official schema document, when it is not a file of the official SDK (`v1-nes`). */
  readonly official?: { readonly file: string; readonly schema: Json };
}

/**
 * Whether our x-methods direction matches an official one. The official `proxy` side (the
 * proxy-chain methods, between a conductor and its proxies) matches `client_to_agent` (the
 * conductor is the proxy's client) or `both`, never `agent_to_client`.
 */
function sameDirection(official: OfficialMethod['direction'], mine: unknown): boolean {
  return official === 'proxy' ? mine === 'client_to_agent' || mine === 'both' : mine === official;
}

/**
 * Parity with an official ACP schema shipped by @agentclientprotocol/sdk: every official method and
 * definition has a counterpart in ours, our examples validate against the official schema, and
 * instances generated from every official definition validate against ours, except the deliberate
 * deltas listed (with reasons) in the version's deltas file.
 */
export function describeParity(subject: ParitySubject): void {
  const parity = loadOfficialParity(subject.version, subject.official);
  const { counterpartOf, deltas: DELTAS, names: NAMES } = parity;
  const OFFICIAL_DEFS = parity.defs;
  const ours = subject.ours as { $defs: Record<string, Json>; 'x-methods': Record<string, Json> };
  const OUR_DEFS = ours.$defs;
  const ourFile = `schema/${schemaDir(subject.version)}/schema.json`;

  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
  const officialId = `https://acp-kit.dev/official-${subject.version}.json`;
  ajv.addSchema({ ...parity.schema, $id: officialId });
  function official(
    def: string,
    value: unknown,
  ): { ok: true } | { ok: false; pointer: string; message: string } {
    const check = ajv.getSchema(`${officialId}#/$defs/${def}`);
    if (check === undefined) throw new Error(`official schema has no $defs/${def}`);
    if (check(value)) return { ok: true };
    const [error] = check.errors ?? [];
    return { ok: false, pointer: error?.instancePath ?? '', message: error?.message ?? 'rejected' };
  }

  const used = new Set<string>();
  function isDelta(side: 'official' | 'ours', definition: string, pointer: string): boolean {
    const index = DELTAS.findIndex(
      (d) =>
        d.side === side &&
        d.definition === definition &&
        (d.pointer === pointer || pointer.startsWith(`${d.pointer}/`)),
    );
    if (index >= 0) used.add(`${side}:${definition}:${DELTAS[index]!.pointer}`);
    return index >= 0;
  }

  /** Our union each definition is a branch of, to find an official counterpart for variants. */
  const parentUnion = new Map<string, string>();
  for (const [name, def] of Object.entries(OUR_DEFS)) {
    if (typeof def['x-discriminator'] !== 'string' || !Array.isArray(def.oneOf)) continue;
    for (const branch of def.oneOf as Json[])
      parentUnion.set(String(branch.$ref).replace('#/$defs/', ''), name);
  }
  const officialByOurs = new Map<string, string>();
  for (const name of Object.keys(OFFICIAL_DEFS)) {
    const mine = counterpartOf(name);
    if (mine !== null && !officialByOurs.has(mine)) officialByOurs.set(mine, name);
  }
  /** The official definition an example of ours is checked against: its counterpart, or its union's. */
  function officialFor(ourDef: string): string | undefined {
    for (let def: string | undefined = ourDef; def !== undefined; def = parentUnion.get(def)) {
      const found = officialByOurs.get(def);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  describe(`parity with the official ACP ${subject.version} schema`, () => {
    it('has a counterpart for every official definition', () => {
      const missing = Object.keys(OFFICIAL_DEFS).flatMap((name) => {
        const mine = counterpartOf(name);
        if (mine === null) return [];
        return OUR_DEFS[mine] === undefined
          ? [
              `official $defs/${name} has no counterpart: add $defs/${mine} to ${ourFile} or map it in ${parity.namesFile}`,
            ]
          : [];
      });
      expect(missing).toEqual([]);
    });

    it('maps only official definitions and methods that exist, and lists none as missing that we have', () => {
      const stale = Object.keys(NAMES.counterparts).filter((name) => OFFICIAL_DEFS[name] === undefined);
      expect(stale).toEqual([]);
      const official = new Set(parity.methods().map((m) => m.name));
      const staleMethods = Object.keys(NAMES.methods ?? {}).flatMap((name) =>
        !official.has(name)
          ? [`${name}: not an official method`]
          : ours['x-methods'][name] !== undefined
            ? [`${name}: ${ourFile} has it now; remove it from ${parity.namesFile} (methods)`]
            : [],
      );
      expect(staleMethods).toEqual([]);
      const haveNow = Object.entries(NAMES.counterparts).flatMap(([name, c]) =>
        c.ours === null && OUR_DEFS[name] !== undefined
          ? [`${name}: ${ourFile} has it now; remove it from ${parity.namesFile}`]
          : [],
      );
      expect(haveNow).toEqual([]);
    });

    it('has every official method, with the same direction, params and result', () => {
      const problems = parity.methods().flatMap((m) => {
        const mine = ours['x-methods'][m.name];
        if (mine === undefined && NAMES.methods?.[m.name]?.ours === null) return [];
        if (mine === undefined)
          return [
            `official method ${m.name} is missing from x-methods: add it to ${ourFile} or list it in ${parity.namesFile} (methods) with the reason`,
          ];
        const out: string[] = [];
        if (!sameDirection(m.direction, mine.direction))
          out.push(`${m.name}: direction ${String(mine.direction)}, official ${m.direction}`);
        for (const key of ['params', 'result'] as const) {
          const expected = m[key] === undefined ? undefined : counterpartOf(m[key]);
          if ((mine[key] ?? undefined) !== (expected ?? undefined))
            out.push(
              `${m.name}: ${key} ${String(mine[key])}, official ${String(m[key])} (counterpart ${String(expected)})`,
            );
        }
        const form = mine.notification as { direction?: string; params?: string } | undefined;
        if (m.notification === undefined && form !== undefined)
          out.push(`${m.name}: a notification form the official schema does not define`);
        if (m.notification !== undefined) {
          const expected = counterpartOf(m.notification.params);
          if (!sameDirection(m.notification.direction, form?.direction) || form?.params !== expected)
            out.push(
              `${m.name}: notification ${JSON.stringify(form)}, official ${m.notification.direction} with ${m.notification.params} (counterpart ${String(expected)})`,
            );
        }
        return out;
      });
      expect(problems).toEqual([]);
    });

    it('validates every example of ours against the official schema', () => {
      const failures: string[] = [];
      let checked = 0;
      for (const example of subject.examples) {
        // An example of our unstable surface is checked by the version's unstable suite only.
        if (!parity.unstable && OUR_DEFS[example.definition]?.['x-unstable'] === true) continue;
        const target = officialFor(example.definition);
        if (target === undefined) continue;
        checked += 1;
        const result = official(target, example.value);
        if (!result.ok && !isDelta('ours', example.definition, result.pointer)) {
          failures.push(
            `${example.label}: official $defs/${target} rejects it at "${result.pointer}": ${result.message}`,
          );
        }
      }
      expect(failures).toEqual([]);
      expect(checked).toBeGreaterThan(subject.minExamplesChecked);
    });

    it('accepts instances generated from every official definition', () => {
      const sampler = new Sampler(parity.schema);
      const failures: string[] = [];
      const samplerFaults: string[] = [];
      let checked = 0;
      for (const name of Object.keys(OFFICIAL_DEFS)) {
        const mine = counterpartOf(name);
        if (mine === null) continue;
        const extra = { ...parity.wrapperTags(name), ...(NAMES.counterparts[name]?.add ?? {}) };
        sampler.instances(name).forEach((instance, i) => {
          if (!official(name, instance).ok) {
            samplerFaults.push(`$defs/${name} #${i}: ${JSON.stringify(instance)}`);
            return;
          }
          const value =
            typeof instance === 'object' && instance !== null && !Array.isArray(instance)
              ? { ...extra, ...instance }
              : instance;
          checked += 1;
          const result = subject.validate(mine, value);
          if (result.ok) return;
          const pointer = result.issues[0]?.pointer ?? '';
          if (isDelta('official', name, pointer)) return;
          failures.push(
            `official $defs/${name} instance #${i} ${JSON.stringify(value)} is rejected by $defs/${mine} at "${pointer}": ${result.issues[0]?.message ?? ''}`,
          );
        });
      }
      expect(samplerFaults).toEqual([]);
      expect(failures).toEqual([]);
      expect(checked).toBeGreaterThan(Object.keys(OFFICIAL_DEFS).length);
    });

    it('lists only deltas that still apply', () => {
      const stale = DELTAS.filter((d) => !used.has(`${d.side}:${d.definition}:${d.pointer}`)).map(
        (d) =>
          `${d.side} ${d.definition} ${d.pointer}: no instance differs there any more; remove it from ${parity.deltasFile}`,
      );
      expect(stale).toEqual([]);
    });
  });
}
