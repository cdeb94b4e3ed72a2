import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CONTENT = fileURLToPath(new URL('../src/content/docs/', import.meta.url));
const SCHEMA = fileURLToPath(new URL('../../../schema/v2/schema.json', import.meta.url));

/** A fenced json block in a guide; its title starts with the schema definition it shows. */
interface Snippet {
  readonly file: string;
  readonly title: string;
  readonly body: string;
}

async function collectSnippets(): Promise<Snippet[]> {
  const files = (await readdir(CONTENT, { recursive: true })).map(String).filter((f) => /\.mdx?$/.test(f));
  const snippets: Snippet[] = [];
  for (const file of files.sort()) {
    const text = await readFile(join(CONTENT, file), 'utf8');
    for (const match of text.matchAll(/^```json([^\n]*)\n([\s\S]*?)^```$/gm)) {
      const title = /title="([^"]*)"/.exec(match[1] ?? '')?.[1] ?? '';
      snippets.push({ file, title, body: match[2] ?? '' });
    }
  }
  return snippets;
}

describe('json snippets in the guides', async () => {
  const snippets = await collectSnippets();
  const schema = JSON.parse(await readFile(SCHEMA, 'utf8')) as { $defs: Record<string, unknown> };

  it('finds the snippets it is meant to check', () => {
    expect(snippets.length).toBeGreaterThan(10);
  });

  it.each(snippets.map((s) => [`${s.file}: ${s.title}`, s] as const))(
    '%s is valid JSON',
    (_name, snippet) => {
      expect(() => JSON.parse(snippet.body)).not.toThrow();
    },
  );

  it('names an existing schema definition at the start of every snippet title', () => {
    const unnamed = snippets
      .filter((s) => !Object.hasOwn(schema.$defs, s.title.split(':')[0]?.trim() ?? ''))
      .map((s) => `${s.file}: "${s.title}"`);
    expect(unnamed).toEqual([]);
  });
});
