import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createSnippetChecker } from '../src/snippets/check.ts';
import { remarkSchemaSnippets } from '../src/snippets/remark-schema-snippets.ts';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const CONTENT = fileURLToPath(new URL('../src/content/docs/', import.meta.url));

/** A fenced json block in a guide, as the remark plugin will see it. */
interface Snippet {
  readonly file: string;
  readonly line: number;
  readonly meta: string;
  readonly body: string;
}

async function collectSnippets(): Promise<Snippet[]> {
  const files = (await readdir(CONTENT, { recursive: true })).map(String).filter((f) => /\.mdx?$/.test(f));
  const snippets: Snippet[] = [];
  for (const file of files.sort()) {
    const text = await readFile(join(CONTENT, file), 'utf8');
    for (const match of text.matchAll(/^```json([^\n]*)\n([\s\S]*?)^```$/gm)) {
      const line = text.slice(0, match.index).split('\n').length;
      snippets.push({ file, line, meta: (match[1] ?? '').trim(), body: match[2] ?? '' });
    }
  }
  return snippets;
}

const checker = createSnippetChecker(REPO);

describe('json snippets in the guides', async () => {
  const snippets = await collectSnippets();

  it('finds the snippets it is meant to check, some of them included from schema examples', () => {
    expect(snippets.length).toBeGreaterThan(10);
    expect(snippets.filter((s) => s.meta.includes('example="')).length).toBeGreaterThanOrEqual(5);
  });

  it.each(snippets.map((s) => [`${s.file}:${s.line}`, s] as const))('%s matches the schema', (_name, s) => {
    const outcome = checker.check(s);
    expect(outcome.ok ? '' : outcome.problem).toBe('');
  });
});

describe('the snippet checker', () => {
  it('fills an example include with the file from schema/v2/examples and drops its own attributes', () => {
    const outcome = checker.check({
      meta: 'title="PromptResponse: receipt" example="PromptResponse/rfd-insertion-receipt"',
      body: '',
    });
    expect(outcome).toMatchObject({ ok: true, meta: 'title="PromptResponse: receipt"' });
    expect(outcome.ok && JSON.parse(outcome.text)).toEqual({ messageId: 'mess_456def' });
  });

  it('rejects a prompt response whose messageId is null', () => {
    const outcome = checker.check({ meta: 'title="PromptResponse: bad"', body: '{ "messageId": null }' });
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.problem).toMatch(/\$defs\/PromptResponse.*\/messageId/);
  });

  it('validates the params of a request against its method and a result named by result=', () => {
    const request = checker.check({
      meta: 'title="JsonRpcRequest: prompt"',
      body: '{ "jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": { "sessionId": "s" } }',
    });
    expect(!request.ok && request.problem).toMatch(/params of session\/prompt .*PromptRequest/);
    const response = checker.check({
      meta: 'title="JsonRpcSuccessResponse: receipt" result="PromptResponse"',
      body: '{ "jsonrpc": "2.0", "id": 1, "result": {} }',
    });
    expect(!response.ok && response.problem).toMatch(/result .*PromptResponse/);
  });

  it('refuses a body next to an example include, a missing example and an unnamed definition', () => {
    const both = checker.check({
      meta: 'title="PromptResponse: x" example="PromptResponse/rfd-insertion-receipt"',
      body: '{ "messageId": "m" }',
    });
    expect(!both.ok && both.problem).toMatch(/only copy/);
    const missing = checker.check({
      meta: 'title="PromptResponse: x" example="PromptResponse/nope"',
      body: '',
    });
    expect(!missing.ok && missing.problem).toMatch(/does not exist/);
    const unnamed = checker.check({ meta: 'title="Nope: x"', body: '{}' });
    expect(!unnamed.ok && unnamed.problem).toMatch(/names no definition/);
  });

  it('fails the page with its path and line when a snippet does not validate', () => {
    const transform = remarkSchemaSnippets({ repoRoot: REPO });
    const tree = {
      type: 'root',
      children: [
        {
          type: 'code',
          lang: 'json',
          meta: 'title="PromptResponse: bad"',
          value: '{}',
          position: { start: { line: 42 } },
        },
      ],
    };
    expect(() => transform(tree, { path: join(REPO, 'apps/docs/src/content/docs/guides/x.mdx') })).toThrow(
      /apps\/docs\/src\/content\/docs\/guides\/x\.mdx:42: json snippet "PromptResponse: bad"/,
    );
  });
});
