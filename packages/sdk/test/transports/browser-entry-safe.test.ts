/**
 * `@acp-kit/sdk/browser` must load in a web page: its module graph, followed through every
 * relative import, imports nothing from Node (`node:` modules, `ws`, any package) at run time.
 * (The page in packages/cli/test/browser runs it in Chromium for real.)
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../../src/', import.meta.url));

/** The modules a file imports or re-exports at run time (type-only ones are erased). */
function runtimeImports(file: string): string[] {
  const source = readFileSync(join(src, file), 'utf8');
  return [...source.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?from\s+'([^']+)'/gms)]
    .filter(
      (m) =>
        !/^export\s+type\s/.test(m[0]) && !/^(?:import|export)\s*\{\s*(?:type\s+\w+\s*,?\s*)+\}/.test(m[0]),
    )
    .map((m) => m[1]!);
}

describe('the browser entry point', () => {
  it('reaches only relative modules of this package, transitively, and both clients', () => {
    const seen = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const specifier of runtimeImports(file)) {
        expect(specifier, `${file} imports ${specifier}`).toMatch(/^\.\.?\/[a-z0-9/-]+\.js$/);
        visit(relative(src, join(src, dirname(file), specifier.replace(/\.js$/, '.ts'))));
      }
    };
    visit('browser.ts');
    expect(seen).toContain('transports/http-client.ts');
    expect(seen).toContain('transports/browser-websocket-client.ts');
    expect(
      [...seen].filter((file) => /^transports\/websocket(-client|-token|-server)?\.ts$/.test(file)),
    ).toEqual([]);
  });
});
