import { createRequire } from 'node:module';
import { toJSONSchema, type ZodType } from 'zod/v4';

type Json = { [key: string]: unknown };

/** `nes/start` → `Start` + `Nes`; `document/didOpen` → `DidOpen` + `Document`. */
function definitionStem(method: string): string {
  const [family = '', verb = ''] = method.split('/');
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
  return `${cap(verb)}${cap(family)}`;
}

/**
 * The official SDK's next edit suggestions schema (`@agentclientprotocol/sdk/experimental/nes`) as
 * one JSON Schema document, for the parity suite. The SDK ships it as zod validators (its
 * `validate` export, `zStartNesRequest` …), not as a JSON file: each becomes `$defs/<Name>` through
 * zod's own JSON Schema conversion (input side, so defaults stay optional), and each method of its
 * `methods.agent.nes` and `methods.agent.document` tables marks its params and result with
 * `x-method` and `x-side: agent` as the official JSON schemas do, so methods are compared too.
 */
export async function officialNesSchema(): Promise<{ file: string; schema: Json }> {
  const nes = (await import('@agentclientprotocol/sdk/experimental/nes')) as unknown as {
    validate: Record<string, ZodType>;
    methods: { agent: Record<string, Record<string, string> | string> };
  };
  const defs: Record<string, Json> = {};
  for (const [name, schema] of Object.entries(nes.validate)) {
    if (!name.startsWith('z')) continue;
    const { $schema: _drop, ...json } = toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
    defs[name.slice(1)] = json;
  }
  for (const family of ['nes', 'document']) {
    const table = nes.methods.agent[family];
    if (typeof table !== 'object') throw new Error(`the official NES methods table has no ${family}`);
    for (const method of Object.values(table)) {
      const stem = definitionStem(method);
      for (const suffix of ['Request', 'Response', 'Notification']) {
        const def = defs[`${stem}${suffix}`];
        if (def !== undefined) Object.assign(def, { 'x-method': method, 'x-side': 'agent' });
      }
    }
  }
  const file = createRequire(import.meta.url).resolve('@agentclientprotocol/sdk/experimental/nes');
  return { file, schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', $defs: defs } };
}
