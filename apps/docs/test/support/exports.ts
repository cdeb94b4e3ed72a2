import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/** One entry point of a published package and the names it exports (values and types). */
export interface PublishedEntry {
  readonly packageName: string;
  readonly slug: string;
  readonly specifier: string;
  readonly names: readonly string[];
}

/**
 * What the published packages export, read the way a TypeScript user's compiler sees it: the
 * `types` file of every exports-map entry of every non-private package. Written separately from
 * the site's generator (src/api/build.ts) so the test does not just repeat it.
 */
export function publishedExports(repoRoot: string): PublishedEntry[] {
  const packagesDir = join(repoRoot, 'packages');
  const entries: { packageName: string; slug: string; specifier: string; file: string }[] = [];
  for (const dir of readdirSync(packagesDir)) {
    const manifest = join(packagesDir, dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const json = JSON.parse(readFileSync(manifest, 'utf8')) as {
      name: string;
      private?: boolean;
      exports?: Record<string, string | { types?: string }>;
    };
    if (json.private === true) continue;
    for (const [key, target] of Object.entries(json.exports ?? {})) {
      if (typeof target === 'string' || target.types === undefined) continue;
      entries.push({
        packageName: json.name,
        slug: json.name.replace(/^@acp-kit\//, ''),
        specifier: key === '.' ? json.name : `${json.name}/${key.slice(2)}`,
        file: join(packagesDir, dir, target.types),
      });
    }
  }
  const program = ts.createProgram(
    entries.map((e) => e.file),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      noEmit: true,
      skipLibCheck: true,
      types: [],
    },
  );
  const checker = program.getTypeChecker();
  return entries.map((entry) => {
    const source = program.getSourceFile(entry.file);
    const symbol = source && checker.getSymbolAtLocation(source);
    if (symbol === undefined) throw new Error(`cannot read ${entry.file}`);
    return {
      packageName: entry.packageName,
      slug: entry.slug,
      specifier: entry.specifier,
      names: checker.getExportsOfModule(symbol).map((s) => s.name),
    };
  });
}
