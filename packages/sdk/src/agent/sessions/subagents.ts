import type { SessionId, SubagentUpdate } from '@acp-kit/schema';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';
import type { SessionLog } from '../../history/session-log.js';
import type { AgentSession } from '../agent-session.js';

/**
 * What a parent reports about a subagent when it starts one (unstable, upstream's subagents
 * draft): its display title and description, where it works, and whether the client may cancel
 * its work. A later {@link AgentSession.patchSubagent} changes these by the upsert rules.
 */
export interface SubagentOptions {
  /** The parent's display title for the child. */
  readonly title?: string;
  /** What the child is for, in the parent's words. */
  readonly description?: string;
  /** The child's working directory (absolute); default: the parent's. */
  readonly cwd?: string;
  /** The child's extra workspace roots; default: the parent's. */
  readonly additionalDirectories?: readonly string[];
  /** Whether the client may stop the child's current work with `session/cancel` (default false). */
  readonly cancellable?: boolean;
}

/** The patchable fields of a `subagent_update` (omitted: unchanged, `null`: cleared). */
export type SubagentPatch = Partial<
  Pick<SubagentUpdate, 'title' | 'description' | 'cwd' | 'additionalDirectories' | '_meta'>
>;

/**
 * A session's place in a family of sessions: the parent that started it (undefined for an
 * ordinary session), the children it announced, and what the client may do to it as a child.
 * Kept by each {@link AgentSession}; children announced before this process loaded the parent are
 * found again in the parent's log by {@link discoverChildren}.
 */
export class SubagentFamily {
  /** The session that started this one, when it is a subagent loaded here. */
  parent: AgentSession | undefined;
  /** Whether the client may cancel this child's work (the announcement's `capabilities.cancel`). */
  cancellable = false;
  /** The children this session announced that are loaded here. */
  readonly children = new Map<SessionId, AgentSession>();
  /**
   * Children announced (in the log, or by another replica) but not loaded here yet, with whether
   * their latest announcement makes them cancellable; {@link discoverChildren} loads them.
   */
  readonly unloaded = new Map<SessionId, boolean>();
  /** Whether the parent's log was read for children announced before this process loaded it. */
  discovered = false;

  /** Makes `child` a child of `parent` (both directions). */
  static link(parent: AgentSession, child: AgentSession, cancellable: boolean): void {
    child.family.parent = parent;
    child.family.cancellable = cancellable;
    parent.family.children.set(child.id, child);
    parent.family.unloaded.delete(child.id);
  }

  /**
   * Records a `subagent_update` seen in the log: a child this process does not hold yet is noted
   * (to be loaded by the next resume); a loaded child's `capabilities` patch sets `cancellable`.
   */
  noted(update: { sessionId?: unknown; capabilities?: unknown }): void {
    if (typeof update.sessionId !== 'string') return;
    const loaded = this.children.get(update.sessionId);
    const was = loaded?.family.cancellable ?? this.unloaded.get(update.sessionId) ?? false;
    const cancellable = cancellableAfter(was, update.capabilities);
    if (loaded !== undefined) loaded.family.cancellable = cancellable;
    else this.unloaded.set(update.sessionId, cancellable);
  }
}

/**
 * Whether a child is cancellable after a `subagent_update` carrying `capabilities` (the upsert
 * rules: omitted leaves it as it `was`, `null` or a value without `cancel` takes the permission away).
 */
export function cancellableAfter(was: boolean, capabilities: unknown): boolean {
  if (capabilities === undefined) return was;
  return capabilities !== null && (capabilities as { cancel?: unknown }).cancel != null;
}

/**
 * What the subagent guard needs to know of a session: its ID, the parent that announced it (none
 * for an ordinary session), and whether that parent's latest announcement lets the client cancel
 * it. An {@link AgentSession} is one; an adapter that keeps sessions of its own (the v1 agent
 * bridge) gives its sessions these fields to reuse the guard.
 */
export interface SubagentMember {
  readonly id: SessionId;
  readonly family: {
    readonly parent: { readonly id: SessionId } | undefined;
    readonly cancellable: boolean;
  };
}

/** The `subagent_update` that announces a child with these options. */
export function announcement(sessionId: SessionId, options: SubagentOptions): SubagentUpdate {
  return {
    sessionUpdate: 'subagent_update',
    sessionId,
    ...(options.title === undefined ? {} : { title: options.title }),
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.additionalDirectories === undefined
      ? {}
      : { additionalDirectories: [...options.additionalDirectories] }),
    ...(options.cancellable ? { capabilities: { cancel: {} } } : {}),
  };
}

/**
 * The client-initiated methods that change a session: on a subagent each needs a permission of
 * its own in the parent's announcement (only `session/cancel` has one in the draft), whatever the
 * agent supports on ordinary sessions. Read-only methods (`session/resume`, `session/list`,
 * `session/status`, `session/fork`) keep their usual rules.
 */
export const CHILD_MUTATIONS: ReadonlySet<string> = new Set([
  'session/prompt',
  'session/cancel',
  'session/close',
  'session/delete',
  'session/set_config_option',
  'session/set_title',
  'session/archive',
  'session/unarchive',
]);

/**
 * The client-initiated methods naming a session that a subagent's session takes like any other:
 * read-only ones (`session/resume`, `session/status`), `session/fork` (it only reads the child),
 * and the entity-scoped cancels, which the tool call's or terminal's own `capabilities.cancel`
 * permits. Every method of the schema that names a session is in this set or in
 * {@link CHILD_MUTATIONS} (a test checks it, so a new method is classified when it is added).
 */
export const CHILD_UNGUARDED: ReadonlySet<string> = new Set([
  'session/resume',
  'session/status',
  'session/fork',
  'tool_call/cancel',
  'terminal/cancel',
  // Next edit suggestions (unstable): their sessionId names an NES session from nes/start, never a
  // chat session, so never a subagent's.
  'nes/suggest',
  'nes/accept',
  'nes/reject',
  'nes/close',
  'document/didOpen',
  'document/didChange',
  'document/didClose',
  'document/didSave',
  'document/didFocus',
]);

/**
 * The error a client's `method` on `session` gets because the session is a subagent its parent
 * did not open to that method; undefined when it may run (not a child, or `session/cancel` on a
 * cancellable child).
 */
export function childRefusal(session: SubagentMember, method: string): RpcError | undefined {
  const { parent, cancellable } = session.family;
  if (parent === undefined || !CHILD_MUTATIONS.has(method)) return undefined;
  if (method === 'session/cancel' && cancellable) return undefined;
  return new RpcError(
    ErrorCodes.InvalidParams,
    `${method} is not permitted on session ${session.id}: it is a subagent of ${parent.id}, whose announcement ${
      method === 'session/cancel' ? 'does not make it cancellable' : 'grants the client no such change'
    }`,
    { sessionId: session.id, parentSessionId: parent.id, method },
  );
}

/**
 * Loads the children `session` announced that this process does not hold yet — those in its log
 * (read once per session, for one this process loaded after they were announced) and those
 * another replica announced since — and links each to it, cancellable as its latest announcement
 * says. A child whose session is gone is skipped.
 */
export async function discoverChildren(
  log: SessionLog,
  session: AgentSession,
  load: (sessionId: SessionId) => Promise<AgentSession | undefined>,
): Promise<void> {
  const family = session.family;
  if (!family.discovered) {
    family.discovered = true;
    let afterSeq = 0;
    for (;;) {
      const page = await log.read(session.id, { afterSeq, retainedOnly: true });
      for (const entry of page.entries) {
        const update = entry.update as { sessionUpdate: string; sessionId?: unknown; capabilities?: unknown };
        if (update.sessionUpdate === 'subagent_update') family.noted(update);
      }
      const last = page.entries.at(-1)?.seq;
      if (last === undefined || last >= page.lastSeq) break;
      afterSeq = last;
    }
  }
  for (const [childId, cancellable] of [...family.unloaded]) {
    const child = await load(childId);
    if (child === undefined) family.unloaded.delete(childId);
    else SubagentFamily.link(session, child, cancellable);
  }
}

type AnyHandler = (
  params: { sessionId?: unknown } | undefined,
  context: unknown,
  connection: unknown,
) => unknown;

/**
 * Wraps a feature module's handlers of the {@link CHILD_MUTATIONS} so a client's change to a
 * subagent is refused before the handler runs: a request is answered -32602 (what the parent's
 * announcement lacks), a `session/cancel` of a child that is not cancellable is dropped and reported
 * to `dropped`. Other methods and ordinary sessions pass through unchanged.
 */
export function guardSubagents<H extends object>(
  handlers: H,
  find: (sessionId: SessionId) => SubagentMember | undefined,
  dropped: (method: string, error: RpcError, connection: unknown) => void,
): H {
  const guarded = { ...handlers } as Record<string, unknown>;
  for (const method of CHILD_MUTATIONS) {
    const handler = (handlers as Record<string, AnyHandler | undefined>)[method];
    if (handler === undefined) continue;
    const wrapped: AnyHandler = (params, context, connection) => {
      const id = params?.sessionId;
      const session = typeof id === 'string' ? find(id) : undefined;
      const refusal = session === undefined ? undefined : childRefusal(session, method);
      if (refusal === undefined) return handler(params, context, connection);
      if (method !== 'session/cancel') return Promise.reject(refusal);
      dropped(method, refusal, connection);
      return undefined;
    };
    guarded[method] = wrapped;
  }
  return guarded as H;
}
