import { isIP } from 'node:net';

/**
 * Whether binding to `host` keeps a server reachable from this machine only: `localhost`, an
 * address in 127.0.0.0/8, `::1` or an IPv4-mapped loopback. Anything else (including `0.0.0.0`,
 * `::` and every other host name) counts as the network.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const name = bare.toLowerCase();
  if (name === 'localhost') return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  if (isIP(name) === 6) {
    if (name === '::1' || name === '0:0:0:0:0:0:0:1') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(name);
    return mapped !== null && mapped[1]!.startsWith('127.');
  }
  return false;
}
