import type { SessionId } from '@acp-kit/schema';
import type { ConversationChange } from './types.js';

/** Mutable per-session change record filled while one batch is applied. */
export class SessionChanges {
  readonly messageKeys = new Set<string>();
  orderChanged = false;
  stateChanged = false;
  readonly toolCallIds = new Set<string>();
  readonly planIds = new Set<string>();
  contextUsageChanged = false;
  readonly otherKinds = new Set<string>();

  constructor(readonly sessionId: SessionId) {}

  get empty(): boolean {
    return (
      this.messageKeys.size === 0 &&
      !this.orderChanged &&
      !this.stateChanged &&
      this.toolCallIds.size === 0 &&
      this.planIds.size === 0 &&
      !this.contextUsageChanged &&
      this.otherKinds.size === 0
    );
  }

  freeze(): ConversationChange {
    return Object.freeze({
      sessionId: this.sessionId,
      messageKeys: Object.freeze([...this.messageKeys]),
      orderChanged: this.orderChanged,
      stateChanged: this.stateChanged,
      toolCallIds: Object.freeze([...this.toolCallIds]),
      planIds: Object.freeze([...this.planIds]),
      contextUsageChanged: this.contextUsageChanged,
      ...(this.otherKinds.size > 0 ? { otherKinds: Object.freeze([...this.otherKinds]) } : {}),
    });
  }
}

/**
 * Collects what one batch changed, per session. Only created when someone listens, so the hot
 * path without listeners allocates nothing for change tracking.
 */
export class ChangeCollector {
  private readonly bySession = new Map<SessionId, SessionChanges>();

  for(sessionId: SessionId): SessionChanges {
    let changes = this.bySession.get(sessionId);
    if (changes === undefined) {
      changes = new SessionChanges(sessionId);
      this.bySession.set(sessionId, changes);
    }
    return changes;
  }

  drain(): readonly ConversationChange[] {
    const out: ConversationChange[] = [];
    for (const changes of this.bySession.values()) if (!changes.empty) out.push(changes.freeze());
    return Object.freeze(out);
  }
}
