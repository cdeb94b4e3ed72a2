/**
 * How a {@link Connection} turns a message into its JSON text: an answer to a request whose numeric
 * `id` a JavaScript number cannot hold echoes the peer's exact text of that `id`.
 */

import { scanEnvelope } from './envelope-scan.js';
import type { RpcId, RpcMessage } from './messages.js';

/** How an answer names its request on the wire. */
export interface WireId {
  /** The request's `id` exactly as the peer wrote it, when JavaScript numbers cannot hold it. */
  text: string | undefined;
  /** Whether the answer may still go out while the connection drains after the peer's end of stream. */
  draining: boolean;
}

/**
 * The exact text of a numeric `id` a JavaScript number cannot hold (an integer beyond 2^53), read
 * from the message text, so the answer echoes what the peer sent instead of a rounded value.
 */
export function exactIdText(id: RpcId | null, text: string): string | undefined {
  if (typeof id !== 'number' || Number.isSafeInteger(id)) return undefined;
  const scan = scanEnvelope(text);
  return scan.id === id && scan.idText !== null ? scan.idText : undefined;
}

/** Serializes a message; an answer whose ID needs its exact text gets that text spliced in. */
export function serialize(message: RpcMessage, idText: string | undefined): string {
  if (idText === undefined || !('id' in message)) return JSON.stringify(message);
  const { jsonrpc: _jsonrpc, id: _id, ...rest } = message;
  const body = JSON.stringify(rest);
  return `{"jsonrpc":"2.0","id":${idText}${body === '{}' ? '}' : `,${body.slice(1)}`}`;
}
