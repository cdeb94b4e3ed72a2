import { getCollection } from 'astro:content';
import type { DefinitionEntry, VersionEntry } from './model.ts';

/** Every definition page's data, in schema order per version. */
export async function definitionEntries(): Promise<DefinitionEntry[]> {
  const entries = await getCollection('reference', (e) => e.data.record === 'definition');
  return entries.map((e) => e.data as unknown as DefinitionEntry);
}

/** Every version overview's data. */
export async function versionEntries(): Promise<VersionEntry[]> {
  const entries = await getCollection('reference', (e) => e.data.record === 'version');
  return entries.map((e) => e.data as unknown as VersionEntry);
}

/** The URL of a definition's page. */
export function definitionHref(version: string, name: string): string {
  return `/reference/${version}/${name}/`;
}
