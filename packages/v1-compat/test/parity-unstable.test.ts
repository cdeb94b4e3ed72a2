import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { listCases } from '@acp-kit/codegen';
import { describeParity } from '../../schema/test/parity/describe-parity.js';
import type * as V1 from '../src/generated/v1/types.js';
import { validate } from '../src/generated/v1/validate.js';

/**
 * Parity with the official ACP v1 schema *with its unstable surface*
 * (@agentclientprotocol/sdk's schema/v1/schema.unstable.json): the v1 checks again, with every
 * official unstable definition and method given a counterpart in schema/v1 (marked x-unstable) or
 * listed in schema/parity/v1-unstable-names.json with the reason, our examples (unstable ones
 * included) validated by the official unstable schema and its instances by ours, except the
 * deltas listed in schema/parity/v1-unstable-deltas.json.
 */
const SCHEMA_DIR = fileURLToPath(new URL('../../../schema/v1/', import.meta.url));

describeParity({
  version: 'v1-unstable',
  ours: JSON.parse(readFileSync(`${SCHEMA_DIR}schema.json`, 'utf8')) as Record<string, unknown>,
  examples: listCases(`${SCHEMA_DIR}examples`).map((c) => ({
    definition: c.definition,
    label: c.path.slice(SCHEMA_DIR.length),
    value: JSON.parse(readFileSync(c.path, 'utf8')) as unknown,
  })),
  validate: (definition, value) => validate(definition as V1.DefinitionName, value),
  minExamplesChecked: 200,
});
