import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContentBlock } from '@acp-kit/schema';
import { HistoryStoreError } from '@acp-kit/sdk';
import { expect } from 'vitest';

/** A fresh directory under os.tmpdir(); `cleanup` removes it. */
export function tempDir(prefix: string): {
  dir: string;
  file: (name: string) => string;
  cleanup: () => void;
} {
  const dir = mkdtempSync(join(tmpdir(), `acp-history-${prefix}-`));
  return {
    dir,
    file: (name) => join(dir, name),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A text content block. */
export const text = (value: string): ContentBlock => ({ type: 'text', text: value }) as ContentBlock;

/** Runs `open` and returns the HistoryStoreError it throws. */
export function openError(open: () => unknown): HistoryStoreError {
  try {
    open();
  } catch (error) {
    expect(error).toBeInstanceOf(HistoryStoreError);
    return error as HistoryStoreError;
  }
  throw new Error('expected open to fail');
}

/**
 * Makes `path` unwritable for this process and returns the undo function, or null when the
 * platform cannot (root ignores file modes, so root needs the immutable attribute).
 */
export function makeUnwritable(path: string): (() => void) | null {
  if (process.getuid?.() !== 0) {
    chmodSync(path, 0o444);
    return () => chmodSync(path, 0o644);
  }
  try {
    execFileSync('chattr', ['+i', path], { stdio: 'ignore' });
    return () => execFileSync('chattr', ['-i', path], { stdio: 'ignore' });
  } catch {
    return null;
  }
}
