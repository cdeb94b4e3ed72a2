import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { listCases } from '@acp-kit/codegen';
import { describeParity } from '../../schema/test/parity/describe-parity.js';
import type * as V1 from '../src/generated/v1/types.js';
import { validate } from '../src/generated/v1/validate.js';

/**
 * Parity with the official ACP v1 schema shipped by @agentclientprotocol/sdk: every official v1
 * method and definition has a counterpart in schema/v1, our v1 examples validate against the
 * official schema, and instances generated from every official definition validate against ours,
 * except the deliberate deltas listed (with reasons) in schema/parity/v1-deltas.json.
 */
const SCHEMA_DIR = fileURLToPath(new URL('../../../schema/v1/', import.meta.url));

describeParity({
  version: 'v1',
  ours: JSON.parse(readFileSync(`${SCHEMA_DIR}schema.json`, 'utf8')) as Record<string, unknown>,
  examples: listCases(`${SCHEMA_DIR}examples`).map((c) => ({
    definition: c.definition,
    label: c.path.slice(SCHEMA_DIR.length),
    value: JSON.parse(readFileSync(c.path, 'utf8')) as unknown,
  })),
  validate: (definition, value) => validate(definition as V1.DefinitionName, value),
  minExamplesChecked: 150,
});
