import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ACP_KIT_PROTOCOL, TOKEN_PROTOCOL_PREFIX } from './websocket-protocol.js';

export { ACP_KIT_PROTOCOL, TOKEN_PROTOCOL_PREFIX };

/** Characters a token may contain: base64url, which is also valid inside an HTTP header token. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{16,512}$/;

/** A fresh random connection token: 32 bytes from the system CSPRNG, base64url (43 characters). */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Checks that a token is usable on the wire (base64url characters, 16 to 512 of them) and returns
 * it; throws an error that does not repeat the token otherwise.
 */
export function validateToken(token: string): string {
  if (!TOKEN_SHAPE.test(token)) {
    throw new Error(
      `connection token must be 16 to 512 characters of A-Z, a-z, 0-9, "-" or "_" (got ${token.length} characters)`,
    );
  }
  return token;
}

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** The digest of the last expected token (a server checks every request against its one token). */
let expectedToken: string | undefined;
let expectedDigest: Buffer | undefined;

/**
 * Whether `presented` equals `expected`, in time that does not depend on where they differ or on
 * the presented length: both sides are hashed to 32 bytes and compared with `timingSafeEqual`.
 */
export function tokensMatch(presented: string | undefined, expected: string): boolean {
  if (expected !== expectedToken || expectedDigest === undefined) {
    expectedDigest = digest(expected);
    expectedToken = expected;
  }
  const same = timingSafeEqual(digest(presented ?? ''), expectedDigest);
  return same && presented !== undefined;
}

/**
 * The token a handshake presents: `Authorization: Bearer <token>` (non-browser clients), or a
 * `Sec-WebSocket-Protocol` entry `acp-kit.token.<token>` (browsers). Query strings are not read:
 * URLs end up in proxy logs, shell history and `ps` output.
 */
export function presentedToken(request: Pick<IncomingMessage, 'headers'>): string | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    return match ? match[1] : '';
  }
  const offered = request.headers['sec-websocket-protocol'];
  if (offered === undefined) return undefined;
  for (const entry of offered.split(',')) {
    const protocol = entry.trim();
    if (protocol.startsWith(TOKEN_PROTOCOL_PREFIX)) return protocol.slice(TOKEN_PROTOCOL_PREFIX.length);
  }
  return undefined;
}
