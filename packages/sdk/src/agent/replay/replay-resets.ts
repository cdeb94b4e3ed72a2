import {
  type SessionUpdate,
  UPDATE_KIND_TABLE,
  UPDATE_KINDS,
  type UpdateKind,
  type UpdateKindInfo,
} from '@acp-kit/schema';
import { isMessageKind } from '../../history/message-updates.js';

/**
 * An upserted entity whose chunks append to one of its fields: replayed as logged into a client
 * that already holds it, the chunks would append to the copy it has.
 */
interface Appended {
  /** The upsert kind. */
  readonly upsert: UpdateKind;
  /** The property naming the entity. */
  readonly idField: string;
  /** The field the chunks append to; `null` clears it (the schema's upsert rules). */
  readonly field: string;
  /** Whether an upsert carrying only the ID and the cleared field is valid on its own. */
  readonly standalone: boolean;
}

/**
 * Every kind that upserts or appends to such an entity, read from the generated update-kind table
 * (`chunkOf`, `appendsTo`, `clearsAlone`), so a kind the schema gains with chunks is reset too.
 * Messages are not here: the replay folds them itself (see `replayFromLog`).
 */
const APPENDED: ReadonlyMap<string, Appended> = new Map(
  UPDATE_KINDS.flatMap((kind): [string, Appended][] => {
    const row: UpdateKindInfo = UPDATE_KIND_TABLE[kind];
    const upsert = row.chunkOf ?? kind;
    if (row.appendsTo === null || row.idField === null || isMessageKind(upsert)) return [];
    const standalone = UPDATE_KIND_TABLE[upsert].clearsAlone;
    return [[kind, { upsert, idField: row.idField, field: row.appendsTo, standalone }]];
  }),
);

/**
 * The updates that replay one logged update (other than a message's) so that a tool call's
 * content, a terminal's output or a compaction's summary starts empty: the first logged update of
 * each entity in the replay clears the appended field (`null`, unless it already sets it), and a
 * chunk that comes first is preceded by an upsert that clears it. Replaying twice into one client
 * then leaves what replaying once does, and a client that never held the entity gets exactly what
 * it would have got live. `seen` holds the entities already replayed; everything else is returned
 * as logged.
 */
export function replayWithReset(update: SessionUpdate, seen: Set<string>): readonly SessionUpdate[] {
  const raw = update as unknown as Record<string, unknown>;
  const appended = APPENDED.get(raw.sessionUpdate as string);
  if (appended === undefined) return [update];
  const id = raw[appended.idField];
  if (typeof id !== 'string') return [update];
  const key = `${appended.upsert}\u0000${id}`;
  if (seen.has(key)) return [update];
  seen.add(key);
  if (raw.sessionUpdate === appended.upsert) {
    if (raw[appended.field] !== undefined) return [update];
    return [{ ...raw, [appended.field]: null } as unknown as SessionUpdate];
  }
  if (!appended.standalone) return [update];
  const reset = { sessionUpdate: appended.upsert, [appended.idField]: id, [appended.field]: null };
  return [reset as unknown as SessionUpdate, update];
}
