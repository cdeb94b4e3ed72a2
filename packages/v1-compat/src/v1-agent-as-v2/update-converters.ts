/**
 * The v1 → v2 update converters schema/compat/v1-v2.json names in `converterToV2`: kinds whose
 * translation needs what the bridge keeps per session (the message IDs it issued, the session's
 * modes and options). The generated `generated/compat/update-to-v2.ts` table references them;
 * every other kind is translated by its generated conversion there.
 */
import type * as V2 from '@acp-kit/schema';
import type { LeftOut } from '../bridge-loss.js';
import { v1ToV2ContentBlock } from '../generated/compat/converters.js';
import type * as V1 from '../generated/v1/types.js';
import type { MessageKind } from '../message-ids.js';
import type { MessageTracker } from './message-tracker.js';
import type { SessionOptions } from './session-options.js';

/** What a v1 → v2 update converter may read and change: the bridged session's state. */
export interface UpdateToV2Context {
  /** The message IDs the bridge issued (and the run of chunks each message is in). */
  readonly tracker: MessageTracker;
  /** The session's modes and configuration options, as the v1 agent last reported them. */
  readonly options: SessionOptions;
  /** A v1 session/load is replaying: a new message first gets `content: []` (RFD). */
  readonly replaying: boolean;
  /** Told each part left out. */
  readonly leftOut: LeftOut;
}

/**
 * A v1 message chunk becomes the v2 chunk of the message the bridge's tracker says it belongs to
 * (the v1 `messageId`, or the ID the bridge derived for the run of chunks); in a replay a message
 * met for the first time is first sent whole and empty.
 */
export function messageChunkToV2(
  update: V1.UserMessageChunk | V1.AgentMessageChunk | V1.AgentThoughtChunk,
  context: UpdateToV2Context,
): V2.SessionUpdate[] {
  const kind = update.sessionUpdate.replace(/_chunk$/, '') as MessageKind;
  const { messageId, isNew } = context.tracker.chunk(kind, update.messageId);
  const meta = update._meta === undefined ? {} : { _meta: update._meta };
  const out: V2.KnownSessionUpdate[] = [];
  if (context.replaying && isNew) out.push({ sessionUpdate: kind, messageId, content: [] });
  out.push({
    sessionUpdate: `${kind}_chunk`,
    messageId,
    content: v1ToV2ContentBlock(update.content),
    ...meta,
  } as V2.KnownSessionUpdate);
  return out;
}

/** A v1 mode switch: v2 reports the whole option set, with the mode option's new value. */
export function modeToV2(update: V1.CurrentModeUpdate, context: UpdateToV2Context): V2.SessionUpdate[] {
  return [context.options.modeChanged(update)];
}

/** A v1 options change: v2 reports them with the option that stands for the v1 modes. */
export function configOptionsToV2(
  update: V1.ConfigOptionUpdate,
  context: UpdateToV2Context,
): V2.SessionUpdate[] {
  return [context.options.optionsChanged(update)];
}
