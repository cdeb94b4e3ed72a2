/** Attributes of {@link el}; `on*` functions become listeners, everything else an attribute. */
type Attributes = Record<string, string | boolean | number | ((event: Event) => void) | undefined>;

/**
 * Creates an element. Children that are strings become text nodes, never markup: every string an
 * agent wrote reaches the page this way, so `<script>` in a message is shown, not run.
 */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Node | string | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === undefined || child === false) continue;
    element.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return element;
}

/** The element with this id (the page's static skeleton has them all). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page has no #${id}`);
  return element as T;
}

/** JSON for display, indented, bounded so a huge value cannot freeze the page. */
export function pretty(value: unknown, limit = 20_000): string {
  const text = JSON.stringify(value, null, 2) ?? String(value);
  return text.length > limit ? `${text.slice(0, limit)}\n… (${text.length - limit} more characters)` : text;
}
