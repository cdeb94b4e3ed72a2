import { relative } from 'node:path';
import { createSnippetChecker } from './check.ts';

/** The parts of an mdast node the plugin reads; declared here so the docs need no mdast types package. */
interface MdNode {
  type: string;
  lang?: string | null;
  meta?: string | null;
  value?: string;
  position?: { start: { line: number } };
  children?: MdNode[];
}

interface VFileLike {
  path?: string;
}

function* codeBlocks(node: MdNode): Generator<MdNode> {
  if (node.type === 'code') yield node;
  for (const child of node.children ?? []) yield* codeBlocks(child);
}

/** Options of {@link remarkSchemaSnippets}. */
export interface RemarkSchemaSnippetsOptions {
  /** The repository root: `schema/<version>/` and the page paths in errors are relative to it. */
  readonly repoRoot: string;
}

/**
 * A remark plugin that keeps every JSON snippet in the guides true to the schema: it fills
 * ` ```json example="<Definition>/<case>" ` blocks from `schema/<version>/examples/`, and
 * validates every other ` ```json ` block against the definition its title names. Any problem
 * fails the build with the page, the line and what was wrong.
 */
export function remarkSchemaSnippets(options: RemarkSchemaSnippetsOptions) {
  const checker = createSnippetChecker(options.repoRoot);
  return (tree: MdNode, file: VFileLike): void => {
    const page = file.path === undefined ? '(unknown page)' : relative(options.repoRoot, file.path);
    const problems: string[] = [];
    for (const node of codeBlocks(tree)) {
      if (node.lang !== 'json') continue;
      const outcome = checker.check({ meta: node.meta ?? '', body: node.value ?? '' });
      if (!outcome.ok) {
        problems.push(`${page}:${node.position?.start.line ?? '?'}: ${outcome.problem}`);
        continue;
      }
      node.value = outcome.text;
      node.meta = outcome.meta;
    }
    if (problems.length > 0) {
      throw new Error(`JSON snippets that do not match the schema:\n${problems.join('\n')}`);
    }
  };
}
