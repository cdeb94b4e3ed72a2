import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';

/** Where the bundled web app lives (built by `scripts/bundle-inspector.mjs` next to this module's folder). */
const APP_DIR = new URL('../inspector/', import.meta.url);

/** A file of the web app and its content type. */
export type AppAsset = [file: string, type: string];

const ASSETS: Record<string, AppAsset> = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  '/index.html': ['index.html', 'text/html; charset=utf-8'],
  '/app.js': ['app.js', 'text/javascript; charset=utf-8'],
  '/app.css': ['app.css', 'text/css; charset=utf-8'],
  '/lint-worker.js': ['lint-worker.js', 'text/javascript; charset=utf-8'],
};

/**
 * Nothing but this origin: scripts, styles, fetches. The app is one bundle; it never loads anything
 * from outside 127.0.0.1, and an injected `<script>` from a hostile agent string could not run.
 */
const CSP =
  "default-src 'none'; script-src 'self'; worker-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The web app's file at `pathname`, if there is one. */
export function appAsset(pathname: string): AppAsset | undefined {
  return ASSETS[pathname];
}

/** Serves one file of the web app, under the strict content security policy and never cached. */
export async function serveAsset([file, type]: AppAsset, response: ServerResponse): Promise<void> {
  const body = await readFile(new URL(file, APP_DIR));
  response.writeHead(200, {
    'Content-Type': type,
    'Content-Security-Policy': CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  });
  response.end(body);
}
