import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The path people should see for a file: relative to the enclosing repository root (the nearest
 * ancestor holding `.git`), or to the working directory outside a repository. Always uses `/`.
 */
export function displayPath(file: string): string {
  const absolute = resolve(file);
  let dir = dirname(absolute);
  for (;;) {
    if (existsSync(join(dir, '.git'))) return relative(dir, absolute).split('\\').join('/');
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return relative(process.cwd(), absolute).split('\\').join('/');
}
