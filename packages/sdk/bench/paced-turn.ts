/**
 * The paced turn of the capacity benchmark (bench/capacity.ts), shared by our agent
 * (bench/remote-agent.ts) and the official one (bench/official-remote-agent.ts) so both stream
 * alike. A prompt `pace <chunks> <toolAt>` asks for a turn that streams `chunks` chunks of 20–80
 * characters at 30 chunks per second, with one tool call (a `tool_call_update` opening it, one
 * completing it) before chunk `toolAt` when `toolAt` is below `chunks` (a second agent message
 * follows it, as a model's text after a tool call does).
 *
 * Every chunk's text starts with the agent's clock when it handed the chunk to its SDK
 * (`performance.timeOrigin + performance.now()`, ms, comparable across processes of one machine)
 * and the session's running count of chunks sent (1, 2, …): a client reads its latency from the
 * first and checks from the second that it got every chunk the agent says it sent, once.
 *
 * Pacing: one timer per streaming session (not one ticker shared by all). A real host receives
 * each session's tokens from its own model stream, one event per token per session; a shared
 * ticker would hand the SDK every session's chunk in the same macrotask and so flatter any
 * coalescing per tick. A session that falls behind (a loaded agent) does not burst to catch up:
 * its next chunk is due one interval after the late one, as a model's tokens do not queue up.
 */

/** Chunks per second of a paced turn. */
export const CHUNKS_PER_SECOND = 30;
const INTERVAL_MS = 1000 / CHUNKS_PER_SECOND;
const PACE = /^pace (\d+) (\d+)$/;
const FILLER =
  'the quick brown fox jumps over the lazy dog while the compiler checks every branch of the union ';

/** The prompt text that asks for a paced turn. */
export const pacedPrompt = (chunks: number, toolAt: number): string => `pace ${chunks} ${toolAt}`;

/** The paced turn a prompt's text asks for, if it asks for one. */
export function pacedTurn(text: string): { chunks: number; toolAt: number } | undefined {
  const match = PACE.exec(text);
  return match ? { chunks: Number(match[1]), toolAt: Number(match[2]) } : undefined;
}

/** This machine's clock in ms, comparable between its processes. */
export const wallClock = (): number => performance.timeOrigin + performance.now();

/** A chunk's text: stamp, the session's count of chunks sent, filler up to 20–80 characters. */
export function stampedText(sent: number): string {
  const head = `${wallClock().toFixed(3)} ${sent} `;
  const length = 20 + ((sent * 37) % 61);
  return head.length >= length ? head : head + FILLER.slice(0, length - head.length);
}

/** The stamp and count a chunk's text starts with (NaN if it has none). */
export function readStamp(text: string): { stamp: number; sent: number } {
  const space = text.indexOf(' ');
  return {
    stamp: Number(text.slice(0, space)),
    sent: Number.parseInt(text.slice(space + 1), 10),
  };
}

/** The counter of chunks sent in session `id`, made on first use. */
export function sentCounter(counters: Map<string, { count: number }>, id: string): { count: number } {
  let counter = counters.get(id);
  if (!counter) {
    counter = { count: 0 };
    counters.set(id, counter);
  }
  return counter;
}

/** What a paced turn does, given by each agent in its own SDK's terms. */
export interface PacedTurnSteps {
  /** Sends one chunk of the current agent message. */
  chunk(text: string): Promise<void>;
  /** Reports a tool call, completes it, and starts the next agent message. */
  toolCall(): Promise<void>;
}

/**
 * Streams a paced turn through `steps`; `sent` counts the session's chunks (it is incremented
 * before each chunk's text is made). Resolves after the last chunk.
 */
export async function streamPaced(
  turn: { chunks: number; toolAt: number },
  steps: PacedTurnSteps,
  sent: { count: number },
): Promise<void> {
  let due = performance.now();
  for (let i = 0; i < turn.chunks; i += 1) {
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    else due = performance.now();
    due += INTERVAL_MS;
    if (i === turn.toolAt) await steps.toolCall();
    sent.count += 1;
    await steps.chunk(stampedText(sent.count));
  }
}
