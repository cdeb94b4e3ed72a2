/**
 * What both agents of the remote-transports benchmark do with a prompt, so ours
 * (bench/remote-agent.ts) and the official SDK's (bench/official-remote-agent.ts) behave alike:
 * every prompt is inserted at once (its `user_message` is reported and retained, then the
 * `session/prompt` answer carries its `messageId`); a prompt whose text is `stream <n>` then runs a
 * turn — `running`, one retained agent message of `n` `agent_message_chunk`s sent back to back,
 * `idle`/`end_turn`. Any other prompt is only inserted (a receipt, no turn).
 */

const STREAM = /^stream (\d+)$/;

/** The prompt text that asks for a turn of `chunks` chunks. */
export const streamPrompt = (chunks: number): string => `stream ${chunks}`;

/** How many chunks the turn a prompt of this text asks for; 0 for a prompt that only asks a receipt. */
export function turnLength(text: string): number {
  const match = STREAM.exec(text);
  return match ? Number(match[1]) : 0;
}

/** The text of chunk `i` of a turn (a model token, give or take). */
export const chunkText = (i: number): string => `token ${i} `;

/** The concatenated text of a prompt's text blocks. */
export function promptText(content: readonly { type: string; text?: string }[]): string {
  return content.map((block) => (block.type === 'text' ? (block.text ?? '') : '')).join('');
}
