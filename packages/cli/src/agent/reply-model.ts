import type { ContentBlock } from '@acp-kit/schema';

/**
 * The reference agent's built-in "model": deterministic and offline. It answers a prompt with a
 * short reply derived from the prompt's text, split into word-sized pieces for streaming, and
 * counts tokens as whitespace-separated words so usage figures are reproducible.
 */
export interface Reply {
  /** The pieces to stream, in order; joined they form the reply text. */
  pieces: string[];
  /** Words in the prompt. */
  inputTokens: number;
  /** Words in the reply. */
  outputTokens: number;
}

/** The plain text of a prompt: its text blocks joined, other blocks named by type. */
export function promptText(content: readonly ContentBlock[]): string {
  return content
    .map((block) => (block.type === 'text' ? (block as { text: string }).text : `[${block.type}]`))
    .join('\n')
    .trim();
}

/** Builds the reply to a prompt's text. The same text always yields the same reply. */
export function replyTo(text: string, repeat = 1): Reply {
  const words = text.split(/\s+/).filter((word) => word.length > 0);
  const sentence = `You said ${words.length} word${words.length === 1 ? '' : 's'}: "${text}".`;
  const body = Array.from({ length: Math.max(1, repeat) }, () => sentence).join(' ');
  const pieces = body.match(/\S+\s*/g) ?? [body];
  return { pieces, inputTokens: words.length, outputTokens: pieces.length };
}
