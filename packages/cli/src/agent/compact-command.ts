import type { ContentBlock, MessageId } from '@acp-kit/schema';
import type { AgentSession, RetainedMessageKind, SessionLog } from '@acp-kit/sdk';
import { messageChange } from '@acp-kit/sdk/adapter';
import { promptText } from './reply-model.js';
import { pause } from './session-features.js';

/**
 * `/compact`: the reference agent "compacts" the session's context and reports it as a v2
 * compaction (`compaction_update` in_progress, the summary as `compaction_summary_chunk`s, then
 * completed). The summary is derived from the session's retained messages, read back from its log:
 * deterministic and offline — no model is asked.
 */

/** How many of the user's prompts the summary lists (the most recent ones). */
const LISTED_PROMPTS = 5;
/** Longest quoted message text, in characters. */
const QUOTE_LENGTH = 60;

/** What the summary is made of: the retained user and agent messages, in log order. */
export interface RetainedConversation {
  /** The user's messages' text, oldest first. */
  readonly user: readonly string[];
  /** How many agent messages there are. */
  readonly agentCount: number;
  /** The last agent message's text, if any. */
  readonly lastReply: string | undefined;
}

/**
 * Reads a session's retained messages from its log, folding whole-content updates and chunks per
 * message; `except` (the `/compact` prompt itself) is left out. Reads one page at a time.
 */
export async function retainedConversation(
  log: SessionLog,
  sessionId: string,
  except: MessageId,
): Promise<RetainedConversation> {
  const messages = new Map<MessageId, { kind: RetainedMessageKind; blocks: ContentBlock[] }>();
  for (let afterSeq = 0; ; ) {
    const page = await log.read(sessionId, { afterSeq, retainedOnly: true });
    for (const entry of page.entries) {
      const change = messageChange(entry.update);
      if (change === undefined || change.kind === 'agent_thought' || change.messageId === except) continue;
      const known = messages.get(change.messageId);
      if (change.op === 'chunk') {
        if (known) known.blocks.push(change.block);
        else messages.set(change.messageId, { kind: change.kind, blocks: [change.block] });
      } else if (change.content !== undefined || !known) {
        messages.set(change.messageId, { kind: change.kind, blocks: [...(change.content ?? [])] });
      }
    }
    const last = page.entries.at(-1)?.seq;
    if (last === undefined || last >= page.lastSeq) break;
    afterSeq = last;
  }
  const user: string[] = [];
  let agentCount = 0;
  let lastReply: string | undefined;
  for (const { kind, blocks } of messages.values()) {
    if (kind === 'user_message') user.push(promptText(blocks));
    else {
      agentCount += 1;
      lastReply = promptText(blocks);
    }
  }
  return { user, agentCount, lastReply };
}

/** One line of text, at most {@link QUOTE_LENGTH} characters. */
const quote = (text: string): string => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > QUOTE_LENGTH ? `${line.slice(0, QUOTE_LENGTH - 1)}…` : line;
};

/** The summary of a conversation, one piece per summary chunk. The same input gives the same pieces. */
export function summaryPieces({ user, agentCount, lastReply }: RetainedConversation): string[] {
  const total = user.length + agentCount;
  if (total === 0) return ['Nothing to compact: the session has no earlier messages.'];
  const pieces = [
    `Summary of ${total} earlier message${total === 1 ? '' : 's'} (${user.length} from the user, ${agentCount} from the agent).`,
  ];
  const listed = user.slice(-LISTED_PROMPTS);
  if (listed.length < user.length)
    pieces.push(`\n${user.length - listed.length} older prompt(s) not listed.`);
  for (const text of listed) pieces.push(`\n- The user wrote: ${quote(text)}`);
  if (lastReply !== undefined) pieces.push(`\n- The agent last replied: ${quote(lastReply)}`);
  return pieces;
}

/**
 * Runs `/compact` in a turn that is already running: reports the compaction, streams the summary
 * (pausing `delayMs` between chunks, so it can be cancelled), reports it completed — or cancelled
 * on `session/cancel` — and ends the turn.
 */
export async function compactCommand(
  session: AgentSession,
  promptId: MessageId,
  delayMs: number,
): Promise<void> {
  const signal = session.signal;
  const compaction = await session.compaction();
  const pieces = summaryPieces(await retainedConversation(session.log, session.id, promptId));
  for (const piece of pieces) {
    if (signal.aborted) break;
    await compaction.summary({ type: 'text', text: piece });
    await pause(delayMs, signal);
  }
  if (signal.aborted) {
    await compaction.cancel();
    await session.idle('cancelled');
    return;
  }
  await compaction.complete();
  await session.idle('end_turn');
}
