import { closeSync, fchmodSync, fstatSync, openSync, writeFileSync } from 'node:fs';

/**
 * Opens a file that will hold conversation content (prompts, replies, a connection's traffic) and
 * returns its descriptor: `'a'` appends, `'w'` replaces. The file is readable by its owner only
 * before anything is written to it: created with mode 0600, and an existing file that others may
 * read is given mode 0600. Throws, naming the path, when that cannot be done (a file owned by
 * another user, say): conversations are never written where others can read them.
 */
export function openConversationFile(path: string, flags: 'a' | 'w'): number {
  const fd = openSync(path, flags, 0o600);
  try {
    if ((fstatSync(fd).mode & 0o077) !== 0) fchmodSync(fd, 0o600);
  } catch (error) {
    closeSync(fd);
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`${path} would hold conversations but cannot be made readable by you only: ${reason}`, {
      cause: error,
    });
  }
  return fd;
}

/** Writes `text` as the whole of a file holding conversation content, owner-only (see {@link openConversationFile}). */
export function writeConversationFile(path: string, text: string): void {
  const fd = openConversationFile(path, 'w');
  try {
    writeFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
