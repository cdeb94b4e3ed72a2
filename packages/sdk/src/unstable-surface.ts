import type { AgentCapabilities, MethodName, SessionUpdate, UpdateKind } from '@acp-kit/schema';

/**
 * The methods of upstream's unstable surface (its `schema.unstable.json` beyond `schema.json`)
 * that acp-kit implements. An {@link Agent} serves them and a {@link Client} calls them only when
 * created with `unstable: true`. A test fails for a method our schema has and the official stable
 * schema does not until it is listed here, so a new unstable method cannot slip in unguarded.
 */
export const UNSTABLE_METHODS: ReadonlySet<MethodName> = new Set<MethodName>([
  'session/fork',
  'session/set_title',
  'session/status',
  'session/archive',
  'session/unarchive',
  'auth/status',
  'auth/status_update',
  'providers/list',
  'providers/set',
  'providers/disable',
  'mcp/message',
  'proxy/initialize',
  'proxy/successor',
  'nes/start',
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
 * The `session/update` kinds of upstream's unstable surface. An agent created without
 * `unstable: true` cannot send them; a client store created without it keeps them as unknown
 * kinds (in `otherUpdates`, with an `unknown_update_kind` diagnostic), exactly as a client that
 * predates them would.
 */
export const UNSTABLE_UPDATE_KINDS: ReadonlySet<UpdateKind> = new Set<UpdateKind>([
  'plan_removed',
  'session_message',
  'session_message_chunk',
  'subagent_update',
]);

/** The plan content types of upstream's unstable surface (`plan_update` with a file or Markdown plan). */
export const UNSTABLE_PLAN_TYPES: ReadonlySet<string> = new Set(['file', 'markdown']);

/**
 * The agent capabilities of upstream's unstable surface, as paths into `AgentCapabilities`: those
 * that gate the unstable methods, `session.systemPrompt` (fields on `session/new`, `resume`
 * and `fork`) and `positionEncoding` (how next edit suggestions count characters).
 */
export const UNSTABLE_AGENT_CAPABILITIES: readonly (readonly string[])[] = [
  ['session', 'fork'],
  ['session', 'title'],
  ['session', 'status'],
  ['session', 'archive'],
  ['session', 'systemPrompt'],
  ['auth', 'status'],
  ['providers'],
  ['session', 'mcp', 'acp'],
  ['nes'],
  ['positionEncoding'],
];

/** The unstable capabilities `capabilities` sets (not undefined or null), dotted: `session.fork`. */
export function unstableCapabilitiesIn(capabilities: AgentCapabilities | undefined): string[] {
  const found: string[] = [];
  for (const path of UNSTABLE_AGENT_CAPABILITIES) {
    let value: unknown = capabilities;
    for (const key of path) {
      value =
        typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
    }
    if (value !== undefined && value !== null) found.push(path.join('.'));
  }
  return found;
}

/** The error an API of the unstable surface throws when its agent or client did not opt in. */
export function unstableNotEnabled(what: string, owner: 'Agent' | 'Client' | 'ConversationStore'): TypeError {
  return new TypeError(
    `${what} is part of ACP's unstable surface (upstream drafts that may change): create the ${owner} with \`unstable: true\` to use it`,
  );
}

/**
 * Throws {@link unstableNotEnabled} for an update an agent that did not opt in may not send: an
 * unstable kind, or a `plan_update` whose plan is a file or Markdown.
 */
export function refuseUnstableUpdate(update: SessionUpdate): void {
  const kind = update.sessionUpdate;
  if (UNSTABLE_UPDATE_KINDS.has(kind as UpdateKind)) throw unstableNotEnabled(`the ${kind} update`, 'Agent');
  if (kind !== 'plan_update') return;
  const type = (update.plan as { type?: unknown } | undefined)?.type;
  if (typeof type === 'string' && UNSTABLE_PLAN_TYPES.has(type))
    throw unstableNotEnabled(`a plan of type ${type}`, 'Agent');
}
