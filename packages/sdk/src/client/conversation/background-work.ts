import { type KNOWN_UNION_TAGS, type ToolCallStatus, UPDATE_KIND_TABLE } from '@acp-kit/schema';
import type { SessionEntities } from './session-entities.js';
import type { BackgroundWorkView, SubagentView, TerminalView, ToolCallView } from './types.js';

/** The background work types this schema version defines (`terminal`, `tool_call`, `subagent`). */
type BackgroundType = (typeof KNOWN_UNION_TAGS.BackgroundWork.values)[number];

/** A terminal, tool call or subagent, as the store keeps it. */
type Entity = TerminalView | ToolCallView | SubagentView;

/** How the store resolves one background type: the entity kind it names, and when that entity has ended. */
interface Resolution {
  readonly kind: 'terminal_update' | 'tool_call_update' | 'subagent_update';
  readonly get: (entities: SessionEntities, id: string) => Entity | undefined;
  /** Whether the entity reported its end (the final status after which a list may drop it). */
  readonly ended: (entity: Entity) => boolean;
}

const FINAL_TOOL_CALL_STATUSES: ReadonlySet<unknown> = new Set<ToolCallStatus>([
  'completed',
  'failed',
  'cancelled',
]);

/**
 * Which entity each background work type names, typed by the generated union tags: a type the
 * schema gains fails to compile here until the store resolves it. The ID property is the named
 * kind's `idField` in the generated update-kind table (`terminalId`, `toolCallId`).
 */
const RESOLUTIONS: { readonly [T in BackgroundType]: Resolution } = {
  terminal: {
    kind: 'terminal_update',
    get: (entities, id) => entities.terminals.get(id),
    ended: (entity) => entity.fields.exitStatus != null,
  },
  tool_call: {
    kind: 'tool_call_update',
    get: (entities, id) => entities.toolCalls.get(id),
    ended: (entity) => FINAL_TOOL_CALL_STATUSES.has(entity.fields.status),
  },
  // A subagent may leave the list once its mirrored state is idle (its own background list is
  // the child's to report).
  subagent: {
    kind: 'subagent_update',
    get: (entities, id) => entities.subagents.get(id),
    ended: (entity) => (entity.fields.state as { state?: unknown } | undefined)?.state === 'idle',
  },
};

function resolutionOf(type: string): Resolution | null {
  return Object.hasOwn(RESOLUTIONS, type) ? RESOLUTIONS[type as BackgroundType] : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One listed item: what was listed, and the ID it names under its type's resolution. */
interface ListedItem {
  readonly item: Readonly<Record<string, unknown>>;
  readonly type: string;
  readonly id: string | null;
  readonly resolution: Resolution | null;
}

const NO_ITEMS: readonly ListedItem[] = Object.freeze([]);

/**
 * A session's background work: the list the last `state_update` carried (the latest list is
 * authoritative), resolved on each snapshot to the tool calls and terminals it names.
 *
 * The store keeps what it can of a list that breaks the schema's promises and reports each break
 * (`inconsistent_background`): an item naming a terminal or tool call the store holds nothing for
 * stays listed as an unresolved reference (and resolves once that entity arrives); an item listed
 * twice is shown once; an item dropped before its final status (a terminal's `exitStatus`, a tool
 * call's `completed`, `failed` or `cancelled`) leaves the list all the same. An item that is not an
 * object is left out (`malformed_update`); one of a type this SDK does not know is kept, unresolved.
 */
export class BackgroundList {
  /** The items listed, once each; null while the agent does not report background work. */
  #items: readonly ListedItem[] | null = null;
  /** The last list as received, serialised, to tell a repeated snapshot from a change. */
  #received = 'null';
  #views: readonly BackgroundWorkView[] | null = null;
  /** What {@link #views} was built from (the views are shared while none of these changed). */
  #builtFrom: {
    items: readonly ListedItem[];
    terminals: readonly TerminalView[];
    toolCalls: readonly ToolCallView[];
    subagents: readonly SubagentView[];
  } | null = null;

  /**
   * Applies a `state_update`'s `background` (omitted or null: the agent does not report background
   * work). Returns whether the list changed; `report` receives each break of the schema's rules.
   */
  apply(
    background: unknown,
    entities: SessionEntities,
    report: (code: 'inconsistent_background' | 'malformed_update', message: string) => void,
  ): boolean {
    if (background !== undefined && background !== null && !Array.isArray(background)) {
      report(
        'malformed_update',
        'state_update has a background that is not a list; background work not shown',
      );
      background = null;
    }
    const received = JSON.stringify(background ?? null);
    if (received === this.#received) return false;
    this.#received = received;
    const previous = this.#items ?? NO_ITEMS;
    if (!Array.isArray(background)) {
      this.#items = null;
      return true;
    }
    const items: ListedItem[] = [];
    const seen = new Set<string>();
    for (const [index, raw] of background.entries()) {
      if (!isObject(raw) || typeof raw.type !== 'string') {
        report(
          'malformed_update',
          `state_update background/${index} is not an object with a string type; left out`,
        );
        continue;
      }
      const resolution = resolutionOf(raw.type);
      const idField = resolution === null ? null : (UPDATE_KIND_TABLE[resolution.kind].idField as string);
      const id = idField === null ? null : raw[idField];
      if (idField !== null && typeof id !== 'string') {
        report(
          'malformed_update',
          `state_update background/${index} (${raw.type}) has no string ${idField}; left out`,
        );
        continue;
      }
      const listed: ListedItem = {
        item: Object.freeze({ ...raw }),
        type: raw.type,
        id: (id as string | null) ?? null,
        resolution,
      };
      if (listed.id !== null) {
        const key = `${listed.type}:${listed.id}`;
        if (seen.has(key)) {
          report(
            'inconsistent_background',
            `background lists ${listed.type} "${listed.id}" twice; shown once`,
          );
          continue;
        }
        seen.add(key);
        if (resolution !== null && resolution.get(entities, listed.id) === undefined) {
          report(
            'inconsistent_background',
            `background lists ${listed.type} "${listed.id}", which no ${resolution.kind} announced; kept unresolved`,
          );
        }
      }
      items.push(listed);
    }
    for (const gone of previous) {
      if (gone.id === null || gone.resolution === null || seen.has(`${gone.type}:${gone.id}`)) continue;
      const entity = gone.resolution.get(entities, gone.id);
      if (entity === undefined || !gone.resolution.ended(entity)) {
        report(
          'inconsistent_background',
          `background dropped ${gone.type} "${gone.id}" before its final status was reported`,
        );
      }
    }
    this.#items = Object.freeze(items);
    return true;
  }

  /** The background work now, each item resolved to the entity it names; null while not reported. */
  views(entities: SessionEntities): readonly BackgroundWorkView[] | null {
    const items = this.#items;
    if (items === null) return null;
    const terminals = entities.terminals.views();
    const toolCalls = entities.toolCalls.views();
    const subagents = entities.subagents.views();
    const built = this.#builtFrom;
    if (
      this.#views !== null &&
      built !== null &&
      built.items === items &&
      built.terminals === terminals &&
      built.toolCalls === toolCalls &&
      built.subagents === subagents
    ) {
      return this.#views;
    }
    this.#views = Object.freeze(items.map((listed) => view(listed, entities)));
    this.#builtFrom = { items, terminals, toolCalls, subagents };
    return this.#views;
  }
}

function view(listed: ListedItem, entities: SessionEntities): BackgroundWorkView {
  const entity =
    listed.id === null || listed.resolution === null ? undefined : listed.resolution.get(entities, listed.id);
  return Object.freeze({
    type: listed.type,
    id: listed.id,
    item: listed.item,
    resolved: entity !== undefined,
    terminal:
      listed.resolution?.kind === 'terminal_update' ? ((entity as TerminalView | undefined) ?? null) : null,
    toolCall:
      listed.resolution?.kind === 'tool_call_update' ? ((entity as ToolCallView | undefined) ?? null) : null,
    subagent:
      listed.resolution?.kind === 'subagent_update' ? ((entity as SubagentView | undefined) ?? null) : null,
  });
}
