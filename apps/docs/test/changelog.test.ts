import { describe, expect, it } from 'vitest';
import { embedChangelog, parseChangeset } from '../src/changelog/parse.ts';

describe('changelog sources', () => {
  it('reads the packages and bump types from a changeset front matter', () => {
    const parsed = parseChangeset(
      '---\n"@acp-kit/schema": minor\n\'@acp-kit/sdk\': patch\n---\n\nAdd `messageId` to the prompt response.\n',
    );
    expect(parsed.releases).toEqual([
      { name: '@acp-kit/schema', type: 'minor' },
      { name: '@acp-kit/sdk', type: 'patch' },
    ]);
    expect(parsed.summary).toBe('Add `messageId` to the prompt response.');
  });

  it('accepts an empty changeset, which releases nothing', () => {
    expect(parseChangeset('---\n---\n').releases).toEqual([]);
  });

  it('rejects a front matter line that is not a package bump', () => {
    expect(() => parseChangeset('---\n"@acp-kit/sdk": huge\n---\nx')).toThrow(/unreadable changeset/);
  });

  it('drops the package title and nests the versions under the page heading', () => {
    const embedded = embedChangelog('# @acp-kit/sdk\n\n## 0.2.0\n\n### Minor Changes\n\n- thing\n');
    expect(embedded).toBe('#### 0.2.0\n\n##### Minor Changes\n\n- thing');
  });

  it('leaves lines inside code fences alone', () => {
    const embedded = embedChangelog('# pkg\n\n## 1.0.0\n\n```sh\n# a shell comment\n```\n');
    expect(embedded).toContain('\n# a shell comment\n');
  });
});
