import type {
  CompactionId,
  CompactionStatus,
  CompactionUpdate,
  ContentBlock,
  SessionUpdate,
} from '@acp-kit/schema';
import { randomId } from '../../history/message-ids.js';

/** Where a compaction reports to: its session's `update`. */
export interface CompactionSink {
  update(update: SessionUpdate, options?: { retain?: boolean }): Promise<void>;
}

/** The fields of a `compaction_update` other than its ID and the update tag. */
export type CompactionFields = Omit<CompactionUpdate, 'sessionUpdate' | 'compactionId'>;

/** Options of {@link AgentSession.compaction}. */
export interface CompactionOptions {
  /** Use this ID instead of a fresh `compact_…` one (it must be new in the session). */
  compactionId?: CompactionId;
  /** Keep its updates for replay (default true). */
  retain?: boolean;
}

/**
 * A compaction of the session's context being reported: the agent summarises the conversation to
 * free its context window and tells clients how it goes. Each method appends one update to the
 * session log (retained unless `retain: false`), so attached clients see it now and
 * `session/resume` replays it under the same `compactionId`. `compaction_update` is an upsert
 * (omitted fields keep their values, `null` clears, `summary` replaces); summary chunks append.
 */
export interface CompactionHandle {
  /** The ID clients know it by. */
  readonly compactionId: CompactionId;
  /** Appends one block to the summary (`compaction_summary_chunk`). */
  summary(content: ContentBlock): Promise<void>;
  /** Changes fields (`compaction_update`): status, the whole summary, error… */
  update(fields: CompactionFields): Promise<void>;
  /** Reports it completed (`status: completed`); `summary`, when given, replaces the summary. */
  complete(summary?: readonly ContentBlock[]): Promise<void>;
  /** Reports it failed (`status: failed`) and why. */
  fail(error: string): Promise<void>;
  /** Reports it was cancelled (`status: cancelled`). */
  cancel(): Promise<void>;
}

/**
 * Starts a compaction: reports it at once (`compaction_update` with `status: in_progress` unless
 * `fields` says otherwise, so a replay can clear its summary before the chunks) and returns its
 * handle.
 */
export async function startCompaction(
  sink: CompactionSink,
  fields: Partial<CompactionFields> = {},
  options: CompactionOptions = {},
): Promise<CompactionHandle> {
  const compactionId = options.compactionId ?? randomId('compact_');
  const retain = { retain: options.retain ?? true };
  const send = (more: CompactionFields): Promise<void> =>
    sink.update({ sessionUpdate: 'compaction_update', compactionId, ...more } as CompactionUpdate, retain);
  const status = (value: CompactionStatus, more: Partial<CompactionFields> = {}): Promise<void> =>
    send({ ...more, status: value });
  await send({ ...fields, status: fields.status ?? 'in_progress' });
  return {
    compactionId,
    summary: (content) =>
      sink.update({ sessionUpdate: 'compaction_summary_chunk', compactionId, content }, retain),
    update: send,
    complete: (summary) => status('completed', summary === undefined ? {} : { summary: [...summary] }),
    fail: (error) => status('failed', { error }),
    cancel: () => status('cancelled'),
  };
}
