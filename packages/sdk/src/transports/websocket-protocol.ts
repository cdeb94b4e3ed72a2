/**
 * The subprotocol a WebSocket server of this SDK selects when a client offers it. Browser clients,
 * which cannot set an `Authorization` header, offer it together with
 * `` `${TOKEN_PROTOCOL_PREFIX}${token}` ``; the server answers with this one, never with the token.
 */
export const ACP_KIT_PROTOCOL = 'acp-kit';

/** Prefix of the subprotocol that carries the connection token for browser clients. */
export const TOKEN_PROTOCOL_PREFIX = 'acp-kit.token.';
