import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

type Json = { [key: string]: unknown };

interface UpstreamDefinition {
  readonly properties?: string[];
  readonly required?: string[];
  readonly values?: string[];
}

interface UpstreamVersion {
  readonly capabilities: Record<string, string>;
  readonly definitions: Record<string, UpstreamDefinition>;
  readonly methods: Record<string, { params?: string; result?: string }>;
}

const FACTS_FILE = 'schema/parity/upstream-nes.json';

/** schema/parity/upstream-nes.json: upstream's NES surface at the pinned commit, per version. */
export function upstreamNesFacts(version: 'v1' | 'v2'): UpstreamVersion {
  const file = new URL(`../../../../${FACTS_FILE}`, import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as Record<string, UpstreamVersion>)[version]!;
}

/** The definitions of ours that upstream's NES surface does not have, each with why. */
const OURS_ONLY: Record<string, string> = {
  UnknownNesSuggestion:
    "upstream's NesSuggestion keeps an unknown kind in an inline branch; ours names that branch, as for every union.",
};

/** The known values of one of our definitions: an open enum's list, or a union's branch tags. */
function knownValues(defs: Record<string, Json>, name: string, tag = 'kind'): string[] | undefined {
  const def = defs[name]!;
  if (def['x-open-enum'] === true) return ((def.anyOf as Json[])[0]!.enum as string[]).slice();
  if (Array.isArray(def.oneOf) && typeof def['x-discriminator'] === 'string') {
    return (def.oneOf as Json[]).flatMap((branch) => {
      const target = defs[String(branch.$ref).replace('#/$defs/', '')]!;
      const own = (target.properties as Record<string, Json>)[tag]!;
      return 'const' in own ? [String(own.const)] : [];
    });
  }
  return undefined;
}

/**
 * Holds one of our schemas to the facts of upstream's next edit suggestions surface
 * (schema/parity/upstream-nes.json): every upstream definition has ours of the same name, marked
 * unstable, with the same properties, required properties and known values; every method has
 * ours with the same params and result, sent by the client and gated by the agent's nes
 * capability; the capabilities sit where upstream puts them. A definition or method upstream
 * gains, once written into the facts file, names a failing test here.
 */
export function describeUpstreamNesParity(version: 'v1' | 'v2', ours: Json): void {
  const facts = upstreamNesFacts(version);
  const defs = ours.$defs as Record<string, Json>;
  const methods = ours['x-methods'] as Record<string, Json>;

  describe(`parity with upstream's next edit suggestions surface (${version})`, () => {
    it('has every upstream NES definition, unstable, with the same properties and required ones', () => {
      const problems: string[] = [];
      for (const [name, fact] of Object.entries(facts.definitions)) {
        const mine = defs[name];
        if (mine === undefined) {
          problems.push(`${name}: missing from schema/${version}/schema.json`);
          continue;
        }
        if (mine['x-unstable'] !== true) problems.push(`${name}: not marked x-unstable`);
        if (fact.properties !== undefined) {
          // A variant of ours carries its own tag, which upstream writes in the union around it.
          const props = Object.keys((mine.properties ?? {}) as Json)
            .filter((p) => !(p === 'kind' && name.endsWith('Suggestion')))
            .sort();
          const required = ((mine.required ?? []) as string[]).filter((p) => p !== 'kind').sort();
          if (JSON.stringify(props) !== JSON.stringify(fact.properties))
            problems.push(`${name}: properties ${props.join(',')}, upstream ${fact.properties.join(',')}`);
          if (JSON.stringify(required) !== JSON.stringify(fact.required ?? []))
            problems.push(
              `${name}: required ${required.join(',')}, upstream ${(fact.required ?? []).join(',')}`,
            );
        }
        if (fact.values !== undefined) {
          const values = knownValues(defs, name);
          if (JSON.stringify(values) !== JSON.stringify(fact.values))
            problems.push(
              `${name}: known values ${JSON.stringify(values)}, upstream ${JSON.stringify(fact.values)}`,
            );
        }
      }
      expect(problems).toEqual([]);
    });

    it('has no NES definition upstream lacks, except the ones listed with a reason', () => {
      const extra = Object.entries(defs)
        .filter(
          ([name, def]) => def['x-unstable'] === true && /Nes|Document(?!ation)|^Position|^Range$/.test(name),
        )
        .map(([name]) => name)
        .filter((name) => facts.definitions[name] === undefined && OURS_ONLY[name] === undefined);
      expect(extra).toEqual([]);
    });

    it('has every upstream NES method, sent by the client and gated by the nes capability', () => {
      const pointer = version === 'v2' ? '/capabilities/nes' : '/agentCapabilities/nes';
      const problems = Object.entries(facts.methods).flatMap(([method, fact]) => {
        const mine = methods[method];
        if (mine === undefined) return [`${method}: missing from x-methods`];
        const out: string[] = [];
        if (mine.direction !== 'client_to_agent') out.push(`${method}: direction ${String(mine.direction)}`);
        if (mine.params !== fact.params)
          out.push(`${method}: params ${String(mine.params)}, upstream ${fact.params}`);
        if ((mine.result ?? undefined) !== fact.result)
          out.push(`${method}: result ${String(mine.result)}, upstream ${String(fact.result)}`);
        const gate = mine.capability as Json | undefined;
        if (gate?.in !== 'InitializeResponse' || gate.pointer !== pointer)
          out.push(`${method}: gated by ${JSON.stringify(gate)}, expected InitializeResponse ${pointer}`);
        return out;
      });
      expect(problems).toEqual([]);
    });

    it('puts the NES and position encoding capabilities where upstream does', () => {
      const problems = Object.entries(facts.capabilities).flatMap(([path, target]) => {
        const [owner, property] = path.split('/') as [string, string];
        const prop = ((defs[owner]?.properties ?? {}) as Record<string, Json>)[property];
        if (prop === undefined) return [`${path}: missing`];
        const text = JSON.stringify(prop);
        return text.includes(`"#/$defs/${target}"`) ? [] : [`${path}: does not refer to ${target}: ${text}`];
      });
      expect(problems).toEqual([]);
    });
  });
}
