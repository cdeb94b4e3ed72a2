import type { ConversationMessage, ConversationSnapshot } from '@acp-kit/sdk/client';
import { blocksText } from './conversation-view.js';

/** What a replay check found. */
export interface ReplayComparison {
  /** Reported messages the live store holds. */
  readonly messages: number;
  /** Tool calls the live store holds. */
  readonly toolCalls: number;
  /** Each difference, in a sentence; empty when the replay rebuilt the same conversation. */
  readonly differences: readonly string[];
}

const clip = (text: string): string => (text.length > 80 ? `${text.slice(0, 80)}…` : text);

const reported = (snapshot: ConversationSnapshot): ConversationMessage[] =>
  snapshot.messages.filter((message) => message.origin === 'agent');

const name = (message: ConversationMessage): string => `${message.kind} ${message.messageId}`;

/**
 * Compares the live store's view of a session with the one a `session/resume` with replay rebuilt
 * in a fresh store: the same messages under the same IDs, in the same order, with the same content
 * (content repeated in full, as a replay without its reset would produce, is called out), and the
 * same tool calls, plans and compactions.
 */
export function compareReplay(live: ConversationSnapshot, replayed: ConversationSnapshot): ReplayComparison {
  const differences: string[] = [];
  const liveMessages = reported(live);
  const replayedMessages = reported(replayed);
  const replayedByKey = new Map(replayedMessages.map((message) => [message.key, message]));
  const liveKeys = new Set(liveMessages.map((message) => message.key));
  for (const message of liveMessages) {
    const other = replayedByKey.get(message.key);
    const text = blocksText(message.content);
    if (other === undefined) {
      differences.push(`missing from the replay: ${name(message)} "${clip(text)}"`);
      continue;
    }
    const otherText = blocksText(other.content);
    if (otherText === text) continue;
    if (
      text !== '' &&
      otherText.length % text.length === 0 &&
      otherText === text.repeat(otherText.length / text.length)
    )
      differences.push(
        `content duplicated by the replay: ${name(message)} "${clip(text)}" came back ${otherText.length / text.length} times`,
      );
    else
      differences.push(
        `content differs: ${name(message)} live "${clip(text)}", replayed "${clip(otherText)}"`,
      );
  }
  for (const message of replayedMessages)
    if (!liveKeys.has(message.key))
      differences.push(`only in the replay: ${name(message)} "${clip(blocksText(message.content))}"`);
  const common = (messages: ConversationMessage[], keys: Set<string>): string[] =>
    messages.filter((message) => keys.has(message.key)).map((message) => message.key);
  const liveOrder = common(liveMessages, new Set(replayedByKey.keys()));
  const replayOrder = common(replayedMessages, liveKeys);
  if (liveOrder.join('\n') !== replayOrder.join('\n'))
    differences.push('the replay lists the messages in another order');
  const ids = (label: string, a: readonly string[], b: readonly string[]): void => {
    for (const id of a) if (!b.includes(id)) differences.push(`missing from the replay: ${label} ${id}`);
    for (const id of b) if (!a.includes(id)) differences.push(`only in the replay: ${label} ${id}`);
  };
  ids(
    'tool call',
    live.toolCalls.map((call) => call.toolCallId),
    replayed.toolCalls.map((call) => call.toolCallId),
  );
  ids(
    'plan',
    live.plans.map((plan) => plan.planId),
    replayed.plans.map((plan) => plan.planId),
  );
  ids(
    'compaction',
    live.compactions.map((compaction) => compaction.compactionId),
    replayed.compactions.map((compaction) => compaction.compactionId),
  );
  return { messages: liveMessages.length, toolCalls: live.toolCalls.length, differences };
}
