import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.xml': 'application/xml',
  '.wasm': 'application/wasm',
  '.woff2': 'font/woff2',
};

/** A running static server for a built site. */
export interface StaticServer {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:41234`. */
  readonly origin: string;
  close(): Promise<void>;
}

/**
 * Maps a URL path to a file in `root` the way a static host does for Astro's
 * `directory` build format: `/a/` and `/a` both serve `a/index.html`. Returns undefined
 * for paths that escape the root or name nothing.
 */
export async function resolveSitePath(root: string, urlPath: string): Promise<string | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath.split(/[?#]/)[0] ?? '/');
  } catch {
    return undefined;
  }
  const candidate = normalize(join(root, decoded));
  if (candidate !== root && !candidate.startsWith(root.endsWith(sep) ? root : root + sep)) return undefined;
  for (const file of [candidate, join(candidate, 'index.html'), `${candidate}.html`]) {
    const info = await stat(file).catch(() => undefined);
    if (info?.isFile() === true) return file;
  }
  return undefined;
}

/** Serves `root` on 127.0.0.1 at a free port. Only GET and HEAD; anything missing is a 404. */
export async function startStaticServer(root: string): Promise<StaticServer> {
  const server: Server = createServer((request, response) => {
    void (async () => {
      const file = await resolveSitePath(root, request.url ?? '/');
      if (file === undefined || (request.method !== 'GET' && request.method !== 'HEAD')) {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      response.writeHead(200, {
        'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
        // Astro's hashed bundles never change under one name, so the browser may keep them across
        // page visits (as a real host lets it); pages themselves are always fetched fresh.
        'cache-control': (request.url ?? '').startsWith('/_astro/') ? 'max-age=3600, immutable' : 'no-store',
      });
      if (request.method === 'HEAD') response.end();
      else createReadStream(file).pipe(response);
    })().catch(() => {
      response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
