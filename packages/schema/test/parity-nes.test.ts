import { canonicalSchema } from './cases.js';
import { describeUpstreamNesParity } from './parity/upstream-nes.js';

/**
 * Parity of schema/v2's next edit suggestions surface with upstream's v2 unstable schema at the
 * commit schema/parity/upstream-nes.json names. (The official SDK's `experimental/nes` schema is a
 * v1 one: packages/v1-compat/test/parity-nes.test.ts holds schema/v1 to it.)
 */
describeUpstreamNesParity('v2', canonicalSchema());
