import type { PositionEncodingKind } from '@acp-kit/schema';
import { isPositionEncoding, type PositionEncoding } from './document/position-encoding.js';

/**
 * The position encoding a connection uses: the first of the agent's `supported` encodings (its
 * preference order) that the client offered in `clientCapabilities.positionEncodings`, where a
 * client that offered none (or none the agent knows) gets `utf-16`, which every peer supports.
 */
export function negotiatePositionEncoding(
  offered: readonly PositionEncodingKind[] | undefined,
  supported: readonly PositionEncoding[] = ['utf-16'],
): PositionEncoding {
  const known = (offered ?? []).filter(isPositionEncoding);
  return supported.find((encoding) => known.includes(encoding)) ?? 'utf-16';
}
