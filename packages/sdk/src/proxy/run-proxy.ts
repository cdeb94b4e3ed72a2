import type { RpcError } from '../rpc/errors.js';
import { stdioTransport } from '../transports/stream.js';
import { type ProxyOptions, serveProxy } from './serve-proxy.js';

/**
 * Runs a proxy on this process's stdin/stdout, the way a conductor starts one, until the
 * conductor closes the connection; resolves with the close reason.
 */
export function runProxy(options: ProxyOptions = {}): Promise<RpcError> {
  return serveProxy(stdioTransport(), options).closed;
}
