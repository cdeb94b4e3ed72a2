import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** Runtime imports of a module (type-only imports and exports are erased, so they do not count). */
function runtimeImports(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const specifiers: string[] = [];
  for (const match of source.matchAll(/^(?:import|export)\s+(type\s+)?[^'"]*?from\s+'([^']+)'/gm)) {
    if (!match[1]) specifiers.push(match[2]!);
  }
  return specifiers;
}

/** Every module reachable from `entry` at runtime, and the bare packages they import. */
function graph(entry: string): { modules: string[]; packages: Map<string, string> } {
  const modules: string[] = [];
  const packages = new Map<string, string>();
  const queue = [join(SRC, entry)];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (modules.includes(file)) continue;
    modules.push(file);
    for (const specifier of runtimeImports(file)) {
      if (specifier.startsWith('.')) queue.push(join(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else packages.set(specifier, relative(SRC, file));
    }
  }
  return { modules, packages };
}

describe('the ./lint entry', () => {
  it('reaches no Node built-in and no package but @acp-kit/schema at runtime', () => {
    const { modules, packages } = graph('lint.ts');
    expect(modules.length).toBeGreaterThan(5);
    expect(Object.fromEntries(packages)).toEqual({ '@acp-kit/schema': expect.any(String) });
  });

  it('is what the package exports as ./lint', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(manifest.exports['./lint']).toEqual({
      types: './dist/lint.d.ts',
      import: './dist/lint.js',
      default: './dist/lint.js',
    });
  });

  it('keeps the live runner, which does need Node, out of it', () => {
    const { modules } = graph('lint.ts');
    expect(modules.some((file) => file.includes('/live/'))).toBe(false);
    expect(graph('index.ts').modules.some((file) => file.includes('/live/'))).toBe(true);
  });
});
