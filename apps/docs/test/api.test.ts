import { describe, expect, it } from 'vitest';
import { buildApiReference } from '../src/api/build.ts';
import { docToHtml } from '../src/api/doc-html.ts';
import { repoRoot } from '../src/paths.ts';

describe('TSDoc rendering', () => {
  it('escapes markup, keeps code spans literal and resolves {@link} targets', () => {
    const html = docToHtml(
      'Sends `<b>` via {@link Agent.serve | serve}; see {@link Nowhere}. <script>',
      (target) => (target.startsWith('Agent') ? '/api/sdk/Agent/#member-serve' : undefined),
    );
    expect(html).toBe(
      '<p>Sends <code>&lt;b&gt;</code> via <a href="/api/sdk/Agent/#member-serve">serve</a>; see <code>Nowhere</code>. &lt;script&gt;</p>',
    );
  });

  it('turns "- " lines into a list', () => {
    expect(docToHtml('- one\n- two', () => undefined)).toBe('<ul><li>one</li><li>two</li></ul>');
  });
});

describe('the API reference model', () => {
  const packages = buildApiReference({
    repoRoot: repoRoot(),
    schemaDefinitions: { v2: new Set(['PromptResponse']) },
  });
  const sdk = packages.find((p) => p.name === '@acp-kit/sdk');

  it('reads every published package from its declaration files, the private docs app excluded', () => {
    expect(packages.map((p) => p.name)).toContain('@acp-kit/sdk');
    expect(packages.map((p) => p.name)).not.toContain('@acp-kit/docs');
    expect(sdk?.entryPoints.map((e) => e.specifier)).toContain('@acp-kit/sdk/agent');
  });

  it('lists public members with their comments and leaves out #private and @internal ones', () => {
    const session = sdk?.items.find((i) => i.name === 'AgentSession');
    const names = session?.members.map((m) => m.name) ?? [];
    expect(names).toContain('idle');
    expect(names).not.toContain('attach'); // @internal
    expect(names.some((n) => n.startsWith('#'))).toBe(false);
    expect(session?.members.find((m) => m.name === 'idle')?.signature).toMatch(/^idle\(/);
  });

  it('sends a generated schema type to its schema reference page and groups other generated exports', () => {
    const schema = packages.find((p) => p.name === '@acp-kit/schema');
    expect(schema?.items.find((i) => i.name === 'PromptResponse')?.href).toBe(
      '/reference/v2/PromptResponse/#typescript',
    );
    expect(schema?.items.find((i) => i.name === 'isPromptResponse')?.href).toBe(
      '/api/schema/validate/#isPromptResponse',
    );
  });
});
