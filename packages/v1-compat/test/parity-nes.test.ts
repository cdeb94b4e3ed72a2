import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { listCases } from '@acp-kit/codegen';
import { describeParity } from '../../schema/test/parity/describe-parity.js';
import { officialNesSchema } from '../../schema/test/parity/official-nes.js';
import { describeUpstreamNesParity } from '../../schema/test/parity/upstream-nes.js';
import type * as V1 from '../src/generated/v1/types.js';
import { validate } from '../src/generated/v1/validate.js';

/**
 * Parity of schema/v1's next edit suggestions surface with the official SDK's `experimental/nes`
 * schema (a v1 one: its validators, turned into a schema document) — every official definition
 * and method has ours, our examples pass the official validators' schema, instances generated
 * from every official definition pass ours, except the deltas in schema/parity/nes-deltas.json —
 * and with upstream's v1 unstable schema at the commit schema/parity/upstream-nes.json names.
 */
const SCHEMA_DIR = fileURLToPath(new URL('../../../schema/v1/', import.meta.url));
const ours = JSON.parse(readFileSync(`${SCHEMA_DIR}schema.json`, 'utf8')) as Record<string, unknown>;

describeParity({
  version: 'v1-nes',
  official: await officialNesSchema(),
  ours,
  examples: listCases(`${SCHEMA_DIR}examples`).map((c) => ({
    definition: c.definition,
    label: c.path.slice(SCHEMA_DIR.length),
    value: JSON.parse(readFileSync(c.path, 'utf8')) as unknown,
  })),
  validate: (definition, value) => validate(definition as V1.DefinitionName, value),
  minExamplesChecked: 20,
});

describeUpstreamNesParity('v1', ours);
