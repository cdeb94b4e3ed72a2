import { isAbsolute } from 'node:path';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';

/**
 * Refuses a relative working directory (`session/new`, `session/resume`, the `session/list`
 * filter): ACP requires absolute paths.
 */
export function requireAbsolute(cwd: string): void {
  if (!isAbsolute(cwd)) {
    throw new RpcError(ErrorCodes.InvalidParams, `cwd must be an absolute path, got ${JSON.stringify(cwd)}`, {
      pointer: '/params/cwd',
      expected: 'an absolute path',
    });
  }
}

/** Refuses directories that are not absolute paths, with the pointer of the first one. */
export function requireAbsoluteDirectories(directories: readonly string[] | undefined): void {
  for (const [i, directory] of (directories ?? []).entries()) {
    if (!isAbsolute(directory)) {
      throw new RpcError(
        ErrorCodes.InvalidParams,
        `additionalDirectories must be absolute paths, got ${JSON.stringify(directory)}`,
        { pointer: `/params/additionalDirectories/${i}`, expected: 'an absolute path' },
      );
    }
  }
}
