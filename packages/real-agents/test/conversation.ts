/**
 * Reading a conversation out of the `session/update`s a client received: bounded waits for a
 * turn's end, and the messages folded by the v2 upsert rules (a whole message replaces, a chunk
 * appends), so a replay can be held against what was seen live.
 */
import type { Peer, Update } from './peers.js';

/** Waits until `predicate` holds, checking every 100 ms, or throws after `ms` naming `what`. */
export async function until(what: string, predicate: () => boolean, ms = 150_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export const isState = (update: Update, state: string): boolean =>
  update.sessionUpdate === 'state_update' && (update as { state?: string }).state === state;

/** The stop reason of a `state_update` that ends a turn (idle with a stop reason), else undefined. */
export const stopReasonOf = (update: Update): string | undefined =>
  isState(update, 'idle') ? (update as { stopReason?: string }).stopReason : undefined;

/** Sends a prompt and waits for the idle that ends its turn; returns the receipt and the turn's updates. */
export async function turn(
  peer: Peer,
  sessionId: string,
  text: string,
): Promise<{ messageId: string; updates: Update[]; stopReason: string }> {
  const from = peer.updates.length;
  const messageId = await peer.prompt(sessionId, text);
  let end = -1;
  await until(`the turn of "${text}" to end`, () => {
    end = peer.updates.findIndex((u, i) => i >= from && stopReasonOf(u) !== undefined);
    return end >= 0;
  });
  return {
    messageId,
    updates: peer.updates.slice(from, end + 1),
    stopReason: stopReasonOf(peer.updates[end]!)!,
  };
}

export type MessageKind = 'user_message' | 'agent_message';

/** One message folded from updates. */
export interface Folded {
  kind: MessageKind;
  text: string;
  /** How many whole-message updates (not chunks) named it: a replay sends each message once. */
  wholes: number;
}

const KIND: Record<string, MessageKind | undefined> = {
  user_message: 'user_message',
  user_message_chunk: 'user_message',
  agent_message: 'agent_message',
  agent_message_chunk: 'agent_message',
};

function textOf(content: unknown): string {
  const blocks = Array.isArray(content)
    ? content
    : content === undefined || content === null
      ? []
      : [content];
  return blocks.map((block) => (block as { text?: string }).text ?? '').join('');
}

/** The user and agent messages in `updates`, by ID, in order of first appearance. */
export function fold(updates: readonly Update[]): Map<string, Folded> {
  const messages = new Map<string, Folded>();
  for (const update of updates) {
    const kind = KIND[update.sessionUpdate];
    const messageId = (update as { messageId?: string }).messageId;
    if (kind === undefined || messageId === undefined) continue;
    const whole = !update.sessionUpdate.endsWith('_chunk');
    const content = (update as { content?: unknown }).content;
    const current = messages.get(messageId) ?? { kind, text: '', wholes: 0 };
    if (whole) {
      current.wholes++;
      // Omitted content leaves it unchanged; a value replaces it.
      if (content !== undefined) current.text = textOf(content);
    } else current.text += textOf(content);
    messages.set(messageId, current);
  }
  return messages;
}
