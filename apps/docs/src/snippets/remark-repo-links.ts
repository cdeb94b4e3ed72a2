import { dirname, posix, relative, sep } from 'node:path';

/** The parts of an mdast node the plugin reads. */
interface MdNode {
  type: string;
  url?: string;
  children?: MdNode[];
}

interface VFileLike {
  path?: string;
}

/** Options of {@link remarkRepoLinks}. */
export interface RemarkRepoLinksOptions {
  /** The repository root on disk. */
  readonly repoRoot: string;
  /** Where relative links point on the web: `<repositoryUrl>/blob/<branch>/<path>`. */
  readonly repositoryUrl: string;
  readonly branch: string;
}

function* links(node: MdNode): Generator<MdNode> {
  if (node.type === 'link' || node.type === 'definition') yield node;
  for (const child of node.children ?? []) yield* links(child);
}

/**
 * Repository files the site shows as they are (CONTRIBUTING.md, package READMEs) link to their
 * neighbours relatively (`ARCHITECTURE.md`, `../sdk/README.md`). On the site those would be broken,
 * so this plugin points them at the file in the repository instead. Pages of the site itself
 * (anything under apps/docs) are left alone.
 */
export function remarkRepoLinks(options: RemarkRepoLinksOptions) {
  const docsApp = `${options.repoRoot.replace(/[/\\]$/, '')}${sep}apps${sep}docs${sep}`;
  return (tree: MdNode, file: VFileLike): void => {
    if (file.path === undefined || file.path.startsWith(docsApp)) return;
    const dir = dirname(relative(options.repoRoot, file.path)).split(sep).join('/');
    for (const node of links(tree)) {
      const url = node.url ?? '';
      if (url === '' || /^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('/') || url.startsWith('#'))
        continue;
      const target = posix.normalize(posix.join(dir, url));
      if (target.startsWith('..')) continue;
      node.url = `${options.repositoryUrl}/blob/${options.branch}/${target}`;
    }
  };
}
