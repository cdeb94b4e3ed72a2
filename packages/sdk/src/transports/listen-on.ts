import type { AddressInfo, Server } from 'node:net';

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
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    urlHost: host.includes(':') ? `[${host}]` : host,
  };
}
