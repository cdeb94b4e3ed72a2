/**
 * Default message ID generator: `msg_` + 128 random bits (base64url). Random IDs stay unique even
 * when a session is deleted and recreated under the same ID; stores still check each one against
 * the IDs already issued, so a collision is retried rather than trusted to chance.
 */
export function randomMessageId(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `msg_${btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
}

/** How many fresh IDs a store tries before giving up (only a broken generator gets there). */
export const MAX_ID_ATTEMPTS = 64;
