import { relative } from 'node:path';
import { createSnippetChecker } from './check.ts';

/** The parts of an mdast node the plugin reads; declared here so the docs need no mdast types package. */
interface MdNode {
  type: string;
  lang?: string | null;
  meta?: string | null;
  value?: string;
  url?: string;
  data?: { hProperties?: Record<string, unknown> };
  position?: { start: { line: number } };
  children?: MdNode[];
}

interface VFileLike {
  path?: string;
}

/** The definitions a snippet's meta names: its title's definition and its `result`, with the schema version. */
function referencedDefinitions(meta: string): { version: string; names: string[] } {
  const version = /\bschema="(v\d+)"/.exec(meta)?.[1] ?? 'v2';
  const names = [/\btitle="([A-Z]\w*)[:"]/.exec(meta)?.[1], /\bresult="([A-Z]\w*)"/.exec(meta)?.[1]];
  return { version, names: [...new Set(names.filter((n): n is string => n !== undefined))] };
}

/** A small paragraph under a snippet linking the reference page of every definition it shows. */
function referenceLine(meta: string): MdNode | undefined {
  const { version, names } = referencedDefinitions(meta);
  if (names.length === 0) return undefined;
  const links = names.flatMap((name, i): MdNode[] => [
    ...(i === 0 ? [] : [{ type: 'text', value: ' · ' }]),
    { type: 'link', url: `/reference/${version}/${name}/`, children: [{ type: 'inlineCode', value: name }] },
  ]);
  return {
    type: 'paragraph',
    data: { hProperties: { className: ['snippet-ref'] } },
    children: [{ type: 'text', value: `Reference (ACP ${version}): ` }, ...links],
  };
}

/** Adds the reference line after every `json` block whose title names a definition. */
function linkSnippets(node: MdNode): void {
  const children = node.children;
  if (children === undefined) return;
  for (let i = children.length - 1; i >= 0; i--) {
    const child = children[i] as MdNode;
    if (child.type === 'code' && child.lang === 'json') {
      const line = referenceLine(child.meta ?? '');
      if (line !== undefined) children.splice(i + 1, 0, line);
    } else {
      linkSnippets(child);
    }
  }
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
    linkSnippets(tree);
    if (problems.length > 0) {
      throw new Error(`JSON snippets that do not match the schema:\n${problems.join('\n')}`);
    }
  };
}
