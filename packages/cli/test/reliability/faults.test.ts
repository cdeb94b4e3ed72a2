import { chmodSync, chownSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteHistoryStore } from '@acp-kit/history-sqlite';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  agentOnFile,
  clientLeavesMidTurn,
  corruptFile,
  killMidTurn,
  restartLoop,
} from '../../stress/faults.js';
import { requireBuild, tempDir } from '../harness.js';

beforeAll(requireBuild);
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});
function dir(): string {
  const temp = tempDir();
  cleanups.push(temp.cleanup);
  return temp.dir;
}

describe('faults with real agent processes', () => {
  it('rejects pending prompts with a connection error and shows the session disconnected, not idle, when the agent is killed mid-turn', async () => {
    const report = await killMidTurn();
    expect(report.pendingError).toMatchObject({ code: -32099, message: expect.stringMatching(/SIGKILL/) });
    expect(report.connection).toBe('disconnected');
    expect(report.state).not.toBe('idle');
    expect(report.pendingOrigin).toBe('local-unknown');
  });

  it('restores every retained message under its original ID, without duplicates, across graceful and SIGKILL restarts', async () => {
    const report = await restartLoop(dir(), 3, Math.random);
    expect(report.samples).toEqual([]);
    expect(report).toMatchObject({ restarts: 3, survived: 3, lost: 0, duplicated: 0, changed: 0 });
    expect(report.checked).toBeGreaterThanOrEqual(12);
  });

  it('keeps streaming to a WebSocket client when another client disconnects mid-turn', async () => {
    const report = await clientLeavesMidTurn();
    expect(report).toEqual({ watcherGotWholeReply: true, stopReason: 'end_turn' });
  });
});

describe('acp-kit agent --history on a file it cannot use', () => {
  it('exits non-zero at start naming a corrupt file', async () => {
    const path = join(dir(), 'corrupt.db');
    corruptFile(path);
    const report = await agentOnFile(path);
    expect(report.hung).toBe(false);
    expect(report.exitCode).not.toBe(0);
    expect(report.stderr).toContain(path);
    expect(report.stderr).toMatch(/damaged or is not a SQLite database/);
  });

  it('exits non-zero at start naming a file another process holds locked', async () => {
    const path = join(dir(), 'locked.db');
    (await SqliteHistoryStore.open(path)).close();
    const holder = new Database(path);
    cleanups.push(() => holder.close());
    holder.pragma('locking_mode = EXCLUSIVE');
    holder.exec('BEGIN EXCLUSIVE');
    const report = await agentOnFile(path);
    expect(report.hung).toBe(false);
    expect(report.exitCode).not.toBe(0);
    expect(report.stderr).toContain(path);
    expect(report.stderr).toMatch(/lock/);
  });

  it.runIf(process.getuid?.() === 0)('exits non-zero at start naming a file it cannot write', async () => {
    // As root, permissions do not bind: run the agent as nobody on a root-owned read-only copy.
    const folder = dir();
    chmodSync(folder, 0o777);
    const source = join(folder, 'source.db');
    (await SqliteHistoryStore.open(source)).close();
    const path = join(folder, 'readonly.db');
    copyFileSync(source, path);
    chownSync(path, 0, 0);
    chmodSync(path, 0o444);
    const report = await agentOnFile(path, { uid: 65534 });
    expect(report.hung).toBe(false);
    expect(report.exitCode).not.toBe(0);
    expect(report.stderr).toContain(path);
    expect(report.stderr).toMatch(/cannot be written|readonly/i);
  });
});
