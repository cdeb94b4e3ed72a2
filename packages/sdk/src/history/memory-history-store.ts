import { LogHistoryStore } from './log-history-store.js';
import { MemorySessionLog } from './memory-session-log.js';

/** Options of {@link MemoryHistoryStore}. */
export interface MemoryHistoryStoreOptions {
  /** Message ID generator (default: random `msg_…` IDs); collisions with issued IDs are retried. */
  readonly generateMessageId?: () => string;
}

/**
 * An in-memory {@link HistoryStore}, for tests, demos and tools: the message-level view
 * ({@link LogHistoryStore}) of a new {@link MemorySessionLog}. Give its `log` to an agent.
 */
export class MemoryHistoryStore extends LogHistoryStore<MemorySessionLog> {
  constructor(options: MemoryHistoryStoreOptions = {}) {
    super(new MemorySessionLog(options));
  }
}
