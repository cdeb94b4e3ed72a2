import { HistoryStoreError } from './errors.js';

/**
 * Default message ID generator: `msg_` + 128 random bits (base64url). Random IDs stay unique even
 * when a session is deleted and recreated under the same ID; stores still check each one against
 * the IDs already issued, so a collision is retried rather than trusted to chance.
 */
export function randomMessageId(): string {
  return randomId('msg_');
}

/** `prefix` + 128 random bits, base64url; used for generated message and session IDs. */
export function randomId(prefix: string): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `${prefix}${btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
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
