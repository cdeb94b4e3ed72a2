import { type DefinitionName, validate } from '../src/generated/index.js';
import { canonicalSchema, EXAMPLES } from './cases.js';
import { describeParity } from './parity/describe-parity.js';

/**
 * Parity with the official ACP v2 schema shipped by @agentclientprotocol/sdk: every official
 * method and definition has a counterpart here, our examples validate against the official
 * schema, and instances generated from every official definition validate against ours, except
 * the deliberate deltas listed (with reasons) in schema/parity/deltas.json.
 */
describeParity({
  version: 'v2',
  ours: canonicalSchema(),
  examples: EXAMPLES,
  validate: (definition, value) => validate(definition as DefinitionName, value),
  minExamplesChecked: 200,
});
