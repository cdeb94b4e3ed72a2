import { type DefinitionName, validate } from '../src/generated/index.js';
import { canonicalSchema, EXAMPLES } from './cases.js';
import { describeParity } from './parity/describe-parity.js';

/**
 * Parity with the official ACP v2 schema *with its unstable surface*
 * (@agentclientprotocol/sdk's schema.unstable.json): the same checks as the stable parity test —
 * every official definition and method has a counterpart here or is listed as not implemented yet
 * in schema/parity/unstable-names.json, our examples validate against the official unstable
 * schema, official instances validate against ours — except the deltas listed with reasons.
 */
describeParity({
  version: 'v2-unstable',
  ours: canonicalSchema(),
  examples: EXAMPLES,
  validate: (definition, value) => validate(definition as DefinitionName, value),
  minExamplesChecked: 200,
});
