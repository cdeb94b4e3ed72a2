/**
 * `@acp-kit/sdk/nes` must load in a browser (the inspector's page bundles it): its module graph
 * may import, at run time, only modules of the SDK's own and `@acp-kit/schema` — no `node:`
 * module, no `ws`, no other package.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../../src/', import.meta.url));

/** The modules a file imports or re-exports at run time (type-only ones are erased). */
function runtimeImports(file: string): string[] {
  const source = readFileSync(join(src, file), 'utf8');
  const from = [...source.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?from\s+'([^']+)'/gms)];
  const bare = [...source.matchAll(/^import\s+'([^']+)'/gm)];
  return [...from, ...bare].map((m) => m[1]!);
}

describe('@acp-kit/sdk/nes', () => {
  it('imports nothing from Node, transitively: only the SDK’s own modules and @acp-kit/schema', () => {
    const seen = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const specifier of runtimeImports(file)) {
        if (!specifier.startsWith('.')) {
          packages.add(specifier);
          continue;
        }
        const target = normalize(join(dirname(file), specifier)).replace(/\.js$/, '.ts');
        expect(relative(src, join(src, target)).startsWith('..'), `${file} imports ${specifier}`).toBe(false);
        visit(target);
      }
    };
    visit('nes/index.ts');
    for (const name of packages) expect(name, 'a package @acp-kit/sdk/nes imports').toBe('@acp-kit/schema');
    // It reaches the document model and the client, and nothing of the transports or the agent.
    expect(seen).toContain('nes/document/text-document.ts');
    expect(seen).toContain('nes/client/nes-client.ts');
    expect([...seen].filter((file) => /^(transports|agent|history)\//.test(file))).toEqual([]);
  });
});
