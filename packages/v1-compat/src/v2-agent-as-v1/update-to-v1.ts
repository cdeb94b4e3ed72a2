import { isKnownUpdateKind, type SessionUpdate as V2SessionUpdate } from '@acp-kit/schema';
import { UPDATES_TO_V1, type UpdateToV1 } from '../generated/compat/update-to-v1.js';
import type * as V1 from '../generated/v1/types.js';
import { UPDATE_KINDS as V1_UPDATE_KINDS } from '../generated/v1/update-kinds.js';
import { V1_ONLY_UPDATES } from '../v1-only-updates.js';
import { advertises } from './client-advertises.js';
import type { UpdateToV1Context } from './update-converters.js';

export { advertises } from './client-advertises.js';
export type { LeftOut, UpdateToV1Context } from './update-converters.js';

const BACK_TO_V1 = new Map<string, string>(Object.entries(V1_ONLY_UPDATES).map(([v1, v2]) => [v2, v1]));

/** The capability a pointer names, as people write it (`/session/notices` → `session.notices`). */
function capabilityName(pointer: string): string {
  return pointer.slice(1).split('/').join('.');
}

/**
 * Converts one v2 update into the v1 updates it becomes, as the generated `UPDATES_TO_V1` table
 * (from schema/compat/v1-v2.json) says for its kind: by the kind's hand-written converter or its
 * generated conversion; a kind without a v1 form, or gated by a v1 client capability the client
 * did not advertise (`capabilities`, from its `initialize`), is told to `context.leftOut` and
 * sends nothing. An update v1 cannot express at all may also throw a `CompatError`. A kind v2 does
 * not know (`_`-prefixed, or from a later version) travels unchanged, as v1 keeps unknown kinds
 * too — unless v1 uses that name for another update.
 */
export function v2UpdateToV1(
  update: V2SessionUpdate,
  context: UpdateToV1Context,
  capabilities?: V1.ClientCapabilities,
): V1.SessionUpdate[] {
  const kind: string = update.sessionUpdate;
  if (isKnownUpdateKind(kind)) {
    const entry = UPDATES_TO_V1[kind] as UpdateToV1<V2SessionUpdate>;
    if (entry.v1Capability !== undefined && !advertises(capabilities, entry.v1Capability)) {
      context.leftOut(
        '',
        `the v1 client did not advertise ${capabilityName(entry.v1Capability)} in its initialize`,
      );
      return [];
    }
    if (entry.convert !== undefined) return entry.convert(update, context);
    context.leftOut('', entry.lossy ?? `${kind} has no v1 form`);
    return [];
  }
  const back = BACK_TO_V1.get(kind);
  if (back !== undefined) return [{ ...update, sessionUpdate: back } as V1.SessionUpdate];
  if ((V1_UPDATE_KINDS as readonly string[]).includes(kind)) {
    context.leftOut(
      '',
      `the v2 update kind ${JSON.stringify(kind)} is not v2's, and v1 uses that name for another update`,
    );
    return [];
  }
  return [update as V1.ExtensionSessionUpdate];
}
