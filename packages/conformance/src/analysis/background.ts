import { asRecord } from './envelope.js';
import type { Analysis, UpdateRecord } from './model.js';

/** One item of a `background` list this kit can follow: a terminal or a tool call, by ID. */
export interface BackgroundItem {
  kind: 'terminal' | 'tool_call';
  id: string;
  /** Position in the list, for the JSON pointer of a finding. */
  position: number;
}

/** A `state_update` that reported a background list, with the items the kit knows how to follow. */
export interface BackgroundSnapshot {
  update: UpdateRecord;
  items: BackgroundItem[];
}

/** The tool-call statuses after which a tool call does no more work. */
const FINAL_TOOL_STATUSES = new Set(['completed', 'failed', 'cancelled']);

/** Pointer of a list item inside its `session/update` message. */
export function itemPointer(item: BackgroundItem): string {
  return `/params/update/background/${item.position}`;
}

/** `terminal t1` or `tool call c1`, for sentences. */
export function describeItem(item: BackgroundItem): string {
  return `${item.kind === 'terminal' ? 'terminal' : 'tool call'} ${JSON.stringify(item.id)}`;
}

/** Key of an item in the sets below: its kind and its ID. */
export function itemKey(item: Pick<BackgroundItem, 'kind' | 'id'>): string {
  return `${item.kind}:${item.id}`;
}

/**
 * The background list a `state_update` reports: an array (possibly empty) when it reports one,
 * `undefined` when it does not (omitted or `null` means "not reported", not "nothing runs"; a
 * value that is not an array is malformed and treated the same way, which update.schema reports).
 * Items of other kinds (extensions, later versions) are kept out: they name nothing to follow.
 */
export function backgroundOf(update: UpdateRecord): BackgroundItem[] | undefined {
  if (update.sessionUpdate !== 'state_update') return undefined;
  const list = update.update.background;
  if (!Array.isArray(list)) return undefined;
  const items: BackgroundItem[] = [];
  list.forEach((entry, position) => {
    const record = asRecord(entry);
    if (record?.type === 'terminal' && typeof record.terminalId === 'string') {
      items.push({ kind: 'terminal', id: record.terminalId, position });
    } else if (record?.type === 'tool_call' && typeof record.toolCallId === 'string') {
      items.push({ kind: 'tool_call', id: record.toolCallId, position });
    }
  });
  return items;
}

/** What one update tells about the entities background items name. */
export interface EntityFacts {
  /** The entity it creates or updates (which announces it), if any. */
  announces?: { kind: BackgroundItem['kind']; id: string };
  /** Whether it reports that entity's end: a terminal's exitStatus, a tool call's final status. */
  final: boolean;
  /** Terminals a tool call's content names (its process-backed work). */
  terminals: string[];
}

/** Reads {@link EntityFacts} from one update; other kinds of update tell nothing. */
export function entityFacts(update: UpdateRecord): EntityFacts {
  const body = update.update;
  if (update.sessionUpdate === 'terminal_update' && typeof body.terminalId === 'string') {
    return {
      announces: { kind: 'terminal', id: body.terminalId },
      final: body.exitStatus !== undefined && body.exitStatus !== null,
      terminals: [],
    };
  }
  if (update.sessionUpdate === 'tool_call_update' && typeof body.toolCallId === 'string') {
    return {
      announces: { kind: 'tool_call', id: body.toolCallId },
      final: typeof body.status === 'string' && FINAL_TOOL_STATUSES.has(body.status),
      terminals: terminalsIn(body.content),
    };
  }
  if (update.sessionUpdate === 'tool_call_content_chunk' && typeof body.toolCallId === 'string') {
    return { final: false, terminals: terminalsIn([body.content]) };
  }
  return { final: false, terminals: [] };
}

function terminalsIn(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  return content.flatMap((entry) => {
    const record = asRecord(entry);
    return record?.type === 'terminal' && typeof record.terminalId === 'string' ? [record.terminalId] : [];
  });
}

/** Every update of one session, replayed ones included, in transcript order. */
export function sessionUpdates(analysis: Analysis, sessionId: unknown): UpdateRecord[] {
  return analysis.updates.filter((update) => update.sessionId === sessionId);
}

/** Sessions that reported a background list at least once, in order of first appearance. */
export function sessionsWithBackground(analysis: Analysis): unknown[] {
  const sessions: unknown[] = [];
  for (const update of analysis.updates) {
    if (backgroundOf(update) !== undefined && !sessions.includes(update.sessionId)) {
      sessions.push(update.sessionId);
    }
  }
  return sessions;
}
