/** The server answered the handshake with an HTTP status instead of switching to WebSocket. */
export class WebSocketHandshakeError extends Error {
  constructor(
    /**
     * The HTTP status (401 token, 403 origin, 429 rate or per-address cap, 503 total cap, …); 0 in
     * a browser, whose WebSocket API does not expose why a handshake failed.
     */
    readonly status: number,
    /** The reason the server gave in the response body (or, in a browser, what is known). */
    readonly reason: string,
  ) {
    super(
      status === 0
        ? `websocket handshake failed: ${reason}`
        : `websocket handshake refused with HTTP ${status}${reason ? `: ${reason}` : ''}`,
    );
    this.name = 'WebSocketHandshakeError';
  }
}
