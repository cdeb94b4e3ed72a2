import { HistoryStoreError } from './errors.js';

/**
 * Default message ID generator: `msg_` + 128 random bits (base64url). Random IDs stay unique even
 * when a session is deleted and recreated under the same ID; stores still check each one against
 * the IDs already issued, so a collision is retried rather than trusted to chance.
 */
export function randomMessageId(): string {
  return randomId('msg_');
}

/** Random bytes drawn from the platform's CSPRNG in one call, handed out 16 at a time (as Node's `randomUUID` pools its own). */
const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let pooled = POOL_BYTES;
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * `prefix` + 128 random bits, base64url without padding (22 characters); used for generated
 * message, session, tool call and terminal IDs. A turn makes several, so the bits come from a
 * pool refilled by one `crypto.getRandomValues` call per 256 IDs, and are encoded by table.
 */
export function randomId(prefix: string): string {
  if (pooled + 16 > POOL_BYTES) {
    globalThis.crypto.getRandomValues(pool);
    pooled = 0;
  }
  let id = prefix;
  let at = pooled;
  for (const end = pooled + 15; at < end; at += 3) {
    const bits = (pool[at]! << 16) | (pool[at + 1]! << 8) | pool[at + 2]!;
    id +=
      BASE64URL[bits >> 18]! +
      BASE64URL[(bits >> 12) & 63]! +
      BASE64URL[(bits >> 6) & 63]! +
      BASE64URL[bits & 63]!;
  }
  const last = pool[at]!;
  id += BASE64URL[last >> 2]! + BASE64URL[(last & 3) << 4]!;
  pooled += 16;
  return id;
}

/** How many fresh IDs a store tries before giving up (only a broken generator gets there). */
export const MAX_ID_ATTEMPTS = 64;

/**
 * Issues a message ID no one has had before: asks `generate` for candidates until `claim`
 * accepts one (it records the ID and says whether it was unused), and fails with an `io` error
 * after {@link MAX_ID_ATTEMPTS} refusals — only a broken generator gets there. Every store's
 * `nextMessageId` is this loop around its own record of issued IDs.
 */
export function issueMessageId(
  sessionId: string,
  generate: () => string,
  claim: (id: string) => boolean,
): string {
  for (let attempt = 0; attempt < MAX_ID_ATTEMPTS; attempt++) {
    const id = generate();
    if (typeof id === 'string' && id.length > 0 && claim(id)) return id;
  }
  throw new HistoryStoreError(
    'io',
    `could not generate an unused message ID in ${MAX_ID_ATTEMPTS} attempts`,
    {
      sessionId,
    },
  );
}
