/**
 * `@acp-kit/sdk/http-client` must load in a browser: its module graph may import nothing from Node
 * (no `node:` modules, no `ws`), only `fetch`, streams and `TextDecoder` at run time.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const dir = new URL('../../src/transports/', import.meta.url);

/** The modules a file imports at run time (type-only imports are erased). */
function runtimeImports(file: string): string[] {
  const source = readFileSync(new URL(file, dir), 'utf8');
  return [...source.matchAll(/^import\s+(?!type\s)[^;]*?from\s+'([^']+)'/gms)].map((m) => m[1]!);
}

describe('the Streamable HTTP client', () => {
  it('imports only browser-safe modules of its own, transitively', () => {
    const seen = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const specifier of runtimeImports(file)) {
        expect(specifier, `${file} imports ${specifier}`).toMatch(/^\.\/[a-z-]+\.js$/);
        visit(specifier.replace(/^\.\//, '').replace(/\.js$/, '.ts'));
      }
    };
    visit('http-client.ts');
    expect([...seen].sort()).toEqual([
      'abort-listeners.ts',
      'cookie-jar.ts',
      'http-client.ts',
      'protocol-version-header.ts',
      'retry-later.ts',
      'short-exchange.ts',
      'sse-parser.ts',
    ]);
  });
});
