import { byId, el } from './dom.js';

/** How many of the page's messages the history keeps (oldest dropped first). */
const LOG_KEPT = 200;

/**
 * Shows a message in the header and appends it to the history below it: two messages close
 * together (a withdrawn request and the cancel that caused it) would otherwise replace each other
 * before anyone read the first.
 */
export function say(text: string, isError = false): void {
  const line = byId('log');
  line.textContent = text;
  line.className = isError ? 'error' : '';
  const history = byId('log-history');
  const entry = el('li', isError ? { class: 'failed' } : {}, `${new Date().toLocaleTimeString()} ${text}`);
  history.append(entry);
  while (history.childElementCount > LOG_KEPT) history.firstElementChild?.remove();
}

/** Runs one of the page's actions; its failure is said, as `<what> failed: <why>`. */
export async function act(what: string, run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (error) {
    say(`${what} failed: ${error instanceof Error ? error.message : String(error)}`, true);
  }
}
