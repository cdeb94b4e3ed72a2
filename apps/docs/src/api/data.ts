import { loadVersionModel } from '../reference/build.ts';
import { buildApiReference } from './build.ts';
import type { LinkResolver } from './doc-html.ts';
import { type GuideRef, guideUsage } from './guide-usage.ts';
import type { ApiItem, ApiPackage } from './model.ts';
import { contentDir, repoRoot } from '../paths.ts';

let packages: ApiPackage[] | undefined;
let usage: Map<string, GuideRef[]> | undefined;
const definitionNames = new Map<string, ReadonlySet<string>>();

/** The definition names of one schema version, loaded once per build. */
export function schemaDefinitionNames(version: string): ReadonlySet<string> {
  let names = definitionNames.get(version);
  if (names === undefined) {
    names = new Set(loadVersionModel(repoRoot(), version).definitions.map((d) => d.name));
    definitionNames.set(version, names);
  }
  return names;
}

/** The API reference of every published package, read once per build from their declarations. */
export function apiPackages(): ApiPackage[] {
  packages ??= buildApiReference({
    repoRoot: repoRoot(),
    schemaDefinitions: { v2: schemaDefinitionNames('v2') },
  });
  return packages;
}

/** The guides and SDK pages that mention `name`. */
export function guidesUsing(name: string): GuideRef[] {
  usage ??= guideUsage(contentDir());
  return usage.get(name) ?? [];
}

/** Resolves `{@link X}` from a package's comments: its own exports first, then any other package's. */
export function linkResolver(packageName: string): LinkResolver {
  const all = apiPackages();
  const own = all.find((p) => p.name === packageName);
  return (target) => {
    const [name, member] = target.split('.');
    const find = (items: readonly ApiItem[] | undefined) => items?.find((i) => i.name === name);
    const item = find(own?.items) ?? all.map((p) => find(p.items)).find((i) => i !== undefined);
    if (item === undefined) return undefined;
    const hasMember = member !== undefined && item.members.some((m) => m.name === member);
    return hasMember && !item.href.includes('#') ? `${item.href}#${memberAnchor(member)}` : item.href;
  };
}

/** Items that get a page of their own (hand-written exports and namespaces). */
export function ownPageItems(pkg: ApiPackage): ApiItem[] {
  return pkg.items.filter((i) => i.generatedModule === undefined && i.schemaDefinition === undefined);
}

/** The anchor of a class or interface member on its page. */
export function memberAnchor(name: string): string {
  return `member-${name.replace(/[^A-Za-z0-9_$-]/g, '-')}`;
}
