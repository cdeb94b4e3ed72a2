import type { InspectorEvent } from '../../inspect/event-log.js';

/** One event of the inspector process, or the marker that the replay of past events is over. */
export type ServerEvent = InspectorEvent | { seq: number; type: 'live' };

const TOKEN_KEY = 'acp-kit-inspect-token';

/**
 * The session token: taken once from the URL's `#token=` fragment (then removed from the address
 * bar and history), kept in this tab's sessionStorage so a reload still works, and sent only as an
 * `Authorization` header.
 */
export function takeToken(): string | undefined {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (match?.[1] !== undefined) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
    history.replaceState(null, '', location.pathname + location.search);
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

/** The inspector's API, with the session token on every request. */
export class InspectorApi {
  readonly #token: string;

  constructor(token: string) {
    this.#token = token;
  }

  #headers(): Record<string, string> {
    return { Authorization: `Bearer ${this.#token}` };
  }

  /** Sends one JSON-RPC frame to the agent; rejects with the server's reason when it refused. */
  async send(text: string, conn = 1): Promise<void> {
    const path = conn === 1 ? '/api/send' : `/api/send?conn=${conn}`;
    const response = await fetch(path, { method: 'POST', headers: this.#headers(), body: text });
    if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
  }

  /** Opens one more connection to a (remote) agent, for a second client; resolves with its number. */
  async connect(): Promise<number> {
    const response = await fetch('/api/connect', { method: 'POST', headers: this.#headers() });
    if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
    return ((await response.json()) as { conn: number }).conn;
  }

  /** Stops the agent (if it still runs) and starts it again. */
  async restart(): Promise<void> {
    const response = await fetch('/api/restart', { method: 'POST', headers: this.#headers() });
    if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
  }

  /**
   * Follows the event stream (fetch, not EventSource, which cannot send a header), reconnecting
   * after a drop from the last event seen, so nothing is missed or shown twice. A `live` event marks
   * the end of the replayed log.
   */
  async follow(onEvent: (event: ServerEvent) => void, onStatus: (status: string) => void): Promise<never> {
    let after = 0;
    for (;;) {
      try {
        const response = await fetch(`/api/events?after=${after}`, { headers: this.#headers() });
        if (!response.ok || response.body === null)
          throw new Error(`${response.status}: ${await response.text()}`);
        onStatus('connected to the inspector');
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          // Read with a cursor and cut the buffer once per chunk (a chunk of a flood holds thousands of events).
          let start = 0;
          let end = buffer.indexOf('\n\n');
          while (end !== -1) {
            const block = buffer.slice(start, end);
            start = end + 2;
            const data = block
              .split('\n')
              .filter((line) => line.startsWith('data: '))
              .map((line) => line.slice(6))
              .join('\n');
            if (data !== '') {
              const event = JSON.parse(data) as ServerEvent;
              after = event.seq;
              onEvent(event);
            }
            end = buffer.indexOf('\n\n', start);
          }
          buffer = buffer.slice(start);
        }
        onStatus('the inspector closed the event stream; reconnecting');
      } catch (error) {
        onStatus(
          `lost the inspector (${error instanceof Error ? error.message : String(error)}); reconnecting`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}
