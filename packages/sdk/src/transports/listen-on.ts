import type { AddressInfo, Server } from 'node:net';

/** The listen backlog of our endpoints (the kernel caps it at net.core.somaxconn). */
export const LISTEN_BACKLOG = 4096;

/**
 * Starts `server` listening on `host` at `port` (0: a free one) and resolves with the port it got
 * and the host as a URL writes it (`[::1]` for an IPv6 address); rejects with the listen error.
 */
export async function listenOn(
  server: Server,
  port: number,
  host: string,
): Promise<{ port: number; urlHost: string }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A backlog above Node's 511: a busy endpoint accepting hundreds of connections per tick would
    // otherwise drop SYNs, and a client's connect then waits for retransmits (or times out).
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    urlHost: host.includes(':') ? `[${host}]` : host,
  };
}
