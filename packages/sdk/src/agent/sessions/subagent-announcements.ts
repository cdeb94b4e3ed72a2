import type { SessionId, SessionUpdate } from '@acp-kit/schema';
import type { AgentSession } from '../agent-session.js';
import type { ClientPeer } from '../connection/client-peer.js';
import { announcement, SubagentFamily, type SubagentOptions, type SubagentPatch } from './subagents.js';

/**
 * The subagents a session starts (unstable), and those whose announcement (`subagent_update`) has
 * not reached its attached clients yet: {@link AgentSession.subagent} resolves once it has, and
 * from then on those clients follow the child too. Owned by an `AgentSession`; not exported.
 */
export class SubagentAnnouncements {
  /** Creates a session in the same agent; undefined for a session no `Agent` created. */
  readonly #spawn: ((cwd: string) => Promise<AgentSession>) | undefined;
  /** Children started here whose announcement has not reached the attached clients yet. */
  readonly #announcing = new Map<SessionId, () => void>();

  /** `spawn` creates a child session in the parent's agent (the session's `spawn` option). */
  constructor(spawn: ((cwd: string) => Promise<AgentSession>) | undefined) {
    this.#spawn = spawn;
  }

  /**
   * Implements {@link AgentSession.subagent} for `parent`: creates the child, links it, announces
   * it and resolves with it once the announcement reached `parent`'s clients, or once `closed`
   * aborts.
   */
  async start(parent: AgentSession, options: SubagentOptions, closed: AbortSignal): Promise<AgentSession> {
    if (this.#spawn === undefined)
      throw new Error('This session cannot start subagents (it was not created by an Agent).');
    await parent.following();
    const child = await this.#spawn(options.cwd ?? parent.cwd);
    SubagentFamily.link(parent, child, options.cancellable ?? false);
    await this.#announce(child.id, () => parent.update(announcement(child.id, options)), closed);
    return child;
  }

  /**
   * Sends a child's announcement (`send`) and resolves once it was handed to the attached clients
   * (see {@link announced}), or early once the session is `closed` (its clients are gone). A failed
   * send forgets the child and throws.
   */
  async #announce(childId: SessionId, send: () => Promise<void>, closed: AbortSignal): Promise<void> {
    const announced = new Promise<void>((resolve) => this.#announcing.set(childId, resolve));
    try {
      await send();
    } catch (error) {
      this.#announcing.delete(childId);
      throw error;
    }
    // Returns early if this session closes first (its clients are gone); the listener goes either way.
    let onClose: (() => void) | undefined;
    await Promise.race([
      announced,
      new Promise<void>((resolve) => {
        onClose = () => resolve();
        if (closed.aborted) resolve();
        else closed.addEventListener('abort', onClose, { once: true });
      }),
    ]);
    if (onClose !== undefined) closed.removeEventListener('abort', onClose);
  }

  /**
   * A `subagent_update` was handed to the attached clients. For a child started here they now
   * follow the child too (its updates reach them with no session/resume), and its
   * {@link announce} resolves; any other is noted in the `family`.
   */
  announced(
    update: { sessionId?: unknown; capabilities?: unknown },
    family: SubagentFamily,
    peers: () => Iterable<ClientPeer>,
  ): void {
    if (typeof update.sessionId !== 'string') return;
    const done = this.#announcing.get(update.sessionId);
    if (done === undefined) {
      family.noted(update);
      return;
    }
    this.#announcing.delete(update.sessionId);
    const child = family.children.get(update.sessionId);
    if (child) for (const peer of peers()) child.clients.attach(peer);
    done();
  }
}

/**
 * The `subagent_update` that patches what session `parentId` reports about its subagent
 * `sessionId` (see {@link AgentSession.patchSubagent}); a session that is not its child is a
 * `RangeError`.
 */
export function subagentPatch(
  family: Pick<SubagentFamily, 'children' | 'unloaded'>,
  parentId: SessionId,
  sessionId: SessionId,
  patch: SubagentPatch & { cancellable?: boolean },
): SessionUpdate {
  if (!family.children.has(sessionId) && !family.unloaded.has(sessionId)) {
    throw new RangeError(`${sessionId} is not a subagent of ${parentId}`);
  }
  // The child's permission follows the update through the log (SubagentFamily.noted), as on every replica.
  const { cancellable, ...fields } = patch;
  return {
    sessionUpdate: 'subagent_update',
    sessionId,
    ...fields,
    ...(cancellable === undefined ? {} : { capabilities: cancellable ? { cancel: {} } : null }),
  } as SessionUpdate;
}

/**
 * The `subagent_update` that mirrors child `childId`'s state update on its parent, so the parent's
 * clients see the child's activity (see {@link AgentSession.update}).
 */
export function mirroredState(childId: SessionId, update: SessionUpdate): SessionUpdate {
  const { sessionUpdate: _, ...state } = update as { sessionUpdate: string; state: string };
  return { sessionUpdate: 'subagent_update', sessionId: childId, state } as SessionUpdate;
}
