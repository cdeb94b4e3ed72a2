import { realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, sep } from 'node:path';
import { ErrorCodes, RpcError } from '@acp-kit/sdk';

/** A path inside a session's directories, with symlinks resolved. */
export interface ConfinedPath {
  /** The path as the agent gave it. */
  readonly given: string;
  /** The real path it names: symlinks resolved, including the parts that do not exist yet. */
  readonly real: string;
  /** Whether the path exists. */
  readonly exists: boolean;
}

/** The codes `realpath` fails with for a path (or a part of it) that does not exist. */
const MISSING = new Set(['ENOENT', 'ENOTDIR']);

/**
 * The directories a session's v1 agent may reach through the bridge's client services: its `cwd`
 * and its `additionalDirectories`. A path is inside when its real path (every symlink resolved by
 * the operating system) is one of their real paths or below one. A relative path, a path with a
 * `..` segment, a path elsewhere and a symlink leading out are refused -32602, the error naming
 * the path and the allowed roots. This keeps an agent's file requests where the user pointed the
 * session; it is no sandbox (the agent runs on the same machine with the user's rights).
 */
export class SessionPaths {
  /** The allowed roots, as the session's client gave them. */
  readonly roots: readonly string[];

  constructor(cwd: string, additionalDirectories: readonly string[] = []) {
    this.roots = [cwd, ...additionalDirectories.filter((dir) => dir !== cwd)];
  }

  /** The -32602 for a path the session may not reach. */
  refuse(path: string, reason: string, pointer = '/params/path'): RpcError {
    return new RpcError(
      ErrorCodes.InvalidParams,
      `${pointer}: ${JSON.stringify(path)} ${reason} (only paths inside the allowed roots are served: ${this.roots.join(', ')})`,
      {
        pointer,
        path,
        allowedRoots: this.roots,
        expected: "an absolute path inside the session's cwd or additionalDirectories",
      },
    );
  }

  /**
   * Resolves `path` and checks that it is inside; throws {@link SessionPaths.refuse}'s error.
   * `allowOutside`, when given, is asked about an absolute path outside the roots (with its real
   * path) and serves it when it answers `true`.
   */
  async resolve(
    path: string,
    pointer = '/params/path',
    allowOutside?: (realPath: string) => boolean | Promise<boolean>,
  ): Promise<ConfinedPath> {
    if (!isAbsolute(path)) throw this.refuse(path, 'is not an absolute path', pointer);
    if (path.split(/[\\/]/).includes('..')) throw this.refuse(path, 'has a ".." segment', pointer);
    // The deepest part that exists is resolved by the OS; the rest is appended as given.
    let existing = path;
    const missing: string[] = [];
    let real: string | undefined;
    for (;;) {
      try {
        real = await realpath(existing);
        break;
      } catch (error) {
        if (!MISSING.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
        const parent = dirname(existing);
        if (parent === existing) break;
        missing.unshift(basename(existing));
        existing = parent;
      }
    }
    if (real === undefined) throw this.refuse(path, 'is on no existing file system root', pointer);
    const full = missing.length === 0 ? real : join(real, ...missing);
    const roots = await this.#realRoots();
    const inside = roots.some(
      (root) => full === root || full.startsWith(root.endsWith(sep) ? root : root + sep),
    );
    if (!inside && !(await allowOutside?.(full))) {
      const how =
        full === path
          ? "is outside the session's directories"
          : `leads to ${JSON.stringify(full)}, outside the session's directories`;
      throw this.refuse(path, how, pointer);
    }
    return { given: path, real: full, exists: missing.length === 0 };
  }

  /** The roots' real paths (a root that does not exist reaches nothing). */
  async #realRoots(): Promise<string[]> {
    const roots = await Promise.all(this.roots.map((root) => realpath(root).catch(() => undefined)));
    return roots.filter((root): root is string => root !== undefined);
  }
}
