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
import type { MessageTracker, ReplayedMessage } from './message-tracker.js';
import type { SessionOptions } from './session-options.js';

/** What a v1 → v2 update converter may read and change: the bridged session's state. */
export interface UpdateToV2Context {
  /** The message IDs the bridge issued (and the run of chunks each message is in). */
  readonly tracker: MessageTracker;
  /** The session's modes and configuration options, as the v1 agent last reported them. */
  readonly options: SessionOptions;
  /** A v1 session/load is replaying (message chunks then go through {@link replayedToV2} instead). */
  readonly replaying: boolean;
  /** Told each part left out. */
  readonly leftOut: LeftOut;
}

/** One v1 chunk as the v2 chunk of message `messageId`. */
function chunkToV2(
  update: V1.UserMessageChunk | V1.AgentMessageChunk | V1.AgentThoughtChunk,
  kind: MessageKind,
  messageId: string,
): V2.SessionUpdate {
  const meta = update._meta === undefined ? {} : { _meta: update._meta };
  return {
    sessionUpdate: `${kind}_chunk`,
    messageId,
    content: v1ToV2ContentBlock(update.content),
    ...meta,
  } as V2.KnownSessionUpdate;
}

/**
 * A live v1 message chunk becomes the v2 chunk of the message the bridge's tracker says it
 * belongs to (the v1 `messageId`, or the ID the bridge derived for the run of chunks). Replayed
 * chunks are held by the tracker until their message's ID is decided ({@link replayedToV2}).
 */
export function messageChunkToV2(
  update: V1.UserMessageChunk | V1.AgentMessageChunk | V1.AgentThoughtChunk,
  context: UpdateToV2Context,
): V2.SessionUpdate[] {
  const kind = update.sessionUpdate.replace(/_chunk$/, '') as MessageKind;
  const { messageId } = context.tracker.chunk(kind, update.messageId, update.content);
  return [chunkToV2(update, kind, messageId)];
}

/** A replayed message whose ID is decided: first whole and empty when it starts (RFD), then its chunks. */
export function replayedToV2(message: ReplayedMessage): V2.SessionUpdate[] {
  const { kind, messageId } = message;
  const out: V2.SessionUpdate[] = [];
  if (message.reset) out.push({ sessionUpdate: kind, messageId, content: [] } as V2.KnownSessionUpdate);
  for (const chunk of message.chunks) out.push(chunkToV2(chunk, kind, messageId));
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
