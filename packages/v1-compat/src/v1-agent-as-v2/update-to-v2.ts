import { isKnownUpdateKind, type SessionUpdate as V2SessionUpdate } from '@acp-kit/schema';
import { UPDATES_TO_V2, type UpdateToV2 } from '../generated/compat/update-to-v2.js';
import type * as V1 from '../generated/v1/types.js';
import { isKnownUpdateKind as isKnownV1UpdateKind } from '../generated/v1/update-kinds.js';
import type { UpdateToV2Context } from './update-converters.js';

export type { UpdateToV2Context } from './update-converters.js';

/**
 * Converts one v1 update into the v2 updates it becomes, as the generated `UPDATES_TO_V2` table
 * (from schema/compat/v1-v2.json) says for its kind: by the kind's hand-written converter (message
 * chunks, modes and options, which need the bridged session's state) or its generated conversion;
 * a kind without a v2 form is told to `context.leftOut` and sends nothing. Both tool_call and
 * tool_call_update become the v2 upsert tool_call_update. A kind v1 does not know (`_`-prefixed,
 * or from a later version) travels unchanged, as v2 keeps unknown kinds too — unless v2 knows
 * that name as something else: then it has no v2 form and is told to `leftOut`.
 */
export function v1UpdateToV2(update: V1.SessionUpdate, context: UpdateToV2Context): V2SessionUpdate[] {
  const kind: string = update.sessionUpdate;
  if (isKnownV1UpdateKind(kind)) {
    const entry = UPDATES_TO_V2[kind] as UpdateToV2<V1.SessionUpdate>;
    if (entry.convert !== undefined) return entry.convert(update, context);
    context.leftOut('', entry.lossy ?? `${kind} has no v2 form`);
    return [];
  }
  if (isKnownUpdateKind(kind)) {
    context.leftOut(
      '',
      `the v1 update kind ${JSON.stringify(kind)} is not v1's, and v2 uses that name for another update`,
    );
    return [];
  }
  return [update as unknown as V2SessionUpdate];
}
