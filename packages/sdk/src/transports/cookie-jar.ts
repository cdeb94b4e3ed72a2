/**
 * Where an HTTP client keeps the cookies its server sets for a connection. The RFD requires
 * clients to keep cookies and send them back for the connection's lifetime; load balancers route
 * on them (affinity). In a browser, `fetch` keeps cookies itself and this store sees none.
 */
export interface CookieStore {
  /** Takes the `Set-Cookie` headers of one response. */
  store(setCookie: readonly string[]): void;
  /** The `Cookie` header to send, or undefined when there is none. */
  header(): string | undefined;
  /** Forgets every cookie. */
  clear(): void;
}

/**
 * A {@link CookieStore} in memory, for one server: name → value. It honours `Max-Age=0` and an
 * `Expires` in the past as deletion and ignores the other attributes (the client talks to one
 * endpoint, so `Domain` and `Path` decide nothing).
 */
export class MemoryCookieStore implements CookieStore {
  readonly #cookies = new Map<string, string>();

  store(setCookie: readonly string[]): void {
    for (const line of setCookie) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((attribute) => {
        const [key = '', raw = ''] = attribute.split('=').map((part) => part.trim());
        if (key.toLowerCase() === 'max-age') return Number(raw) <= 0;
        if (key.toLowerCase() === 'expires') return Date.parse(raw) <= Date.now();
        return false;
      });
      if (expired) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }

  header(): string | undefined {
    if (this.#cookies.size === 0) return undefined;
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  clear(): void {
    this.#cookies.clear();
  }
}
