/**
 * The SQLite history the resume benchmark replays: opening @acp-kit/history-sqlite from its build,
 * and writing a file of `messages` retained messages (alternating user prompts retained whole and
 * agent replies retained as streamed, 3 blocks each) under {@link RESUME_SESSION}.
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HistoryStore, SessionLog } from '@acp-kit/sdk';
import type { NewRetainedMessage } from '@acp-kit/sdk/adapter';

/** The session every benchmark file holds. */
export const RESUME_SESSION = 'sess_resume_bench';

/** What the benchmark uses of @acp-kit/history-sqlite's SqliteHistoryStore. */
export interface SqliteStore extends HistoryStore {
  /** The session log on the file, which an agent is given. */
  readonly log: SessionLog;
  appendMessages(sessionId: string, messages: Iterable<NewRetainedMessage>): Promise<number>;
}

/** Where the benchmark keeps its file of `messages` messages (written once, reused by later runs). */
export function historyFile(messages: number): string {
  return join(tmpdir(), `acp-kit-bench-resume-${messages}.sqlite`);
}

/**
 * @acp-kit/history-sqlite depends on this package, so it cannot be a dependency here (a workspace
 * cycle); it is loaded at run time from its build instead, which keeps typecheck independent of it.
 */
export async function openSqlite(path: string): Promise<SqliteStore> {
  const specifier = '@acp-kit/history-sqlite';
  let module: { SqliteHistoryStore: { open(path: string): SqliteStore } };
  try {
    module = (await import(specifier)) as typeof module;
  } catch (error) {
    throw new Error(
      `cannot load ${specifier}: build it first (npx turbo run build --filter=@acp-kit/history-sqlite)`,
      { cause: error },
    );
  }
  return module.SqliteHistoryStore.open(path);
}

/** Alternating user prompts (retained whole) and agent replies (retained as streamed, 3 blocks). */
function* history(messages: number): Generator<NewRetainedMessage> {
  for (let i = 0; i < messages; i += 1) {
    const turn = Math.floor(i / 2);
    if (i % 2 === 0) {
      yield {
        kind: 'user_message',
        messageId: `msg_user_${turn}`,
        content: [{ type: 'text', text: `Please look at issue #${turn} and fix the failing test.` }],
        via: 'full',
      };
    } else {
      yield {
        kind: 'agent_message',
        messageId: `msg_agent_${turn}`,
        content: [
          { type: 'text', text: `I read the test for issue #${turn}. ` },
          { type: 'text', text: 'The assertion compared the wrong field; ' },
          { type: 'text', text: 'it is fixed and the suite passes.' },
        ],
        via: 'chunks',
      };
    }
  }
}

/** Writes a fresh file of `messages` messages at `path`. */
export async function populate(path: string, messages: number): Promise<void> {
  rmSync(path, { force: true });
  const store = await openSqlite(path);
  await store.createSession({ sessionId: RESUME_SESSION, cwd: '/repo' });
  await store.appendMessages(RESUME_SESSION, history(messages));
  await store.close();
}
