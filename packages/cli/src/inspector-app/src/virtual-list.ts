/** One entry of a {@link VirtualList}. */
export interface ListItem {
  /** Stable across renders (a message key, a row index). */
  readonly key: string;
  /**
   * What the node shows depends on: the node is reused while every dependency is the same object
   * (the ConversationStore's views are immutable and keep their identity while unchanged).
   */
  readonly deps: readonly unknown[];
  render(): HTMLElement;
}

/** Lists at most this long are rendered whole: small sessions need no windowing, and tests see every node. */
const WHOLE_LIMIT = 200;
/** Pixels rendered above and below the visible part. */
const OVERSCAN = 800;

/**
 * A list that keeps only the entries near the visible part of its scrolling `viewport` in the DOM
 * (between two spacers sized from measured heights, an estimate for entries never shown), so a
 * session of thousands of messages or a traffic of 100 000 frames scrolls and filters without
 * freezing the page. Nodes are cached by key and reused while their dependencies are unchanged.
 * While the viewport is scrolled to the end, it stays at the end as entries arrive.
 */
export class VirtualList {
  readonly #viewport: HTMLElement;
  readonly #content: HTMLElement;
  readonly #estimate: number;
  readonly #heights = new Map<string, number>();
  readonly #nodes = new Map<string, { deps: readonly unknown[]; node: HTMLElement }>();
  #items: readonly ListItem[] = [];
  /** Whether the view follows the end as entries arrive (until the reader scrolls up). */
  #stuck = true;
  #top: HTMLElement;
  #bottom: HTMLElement;

  /**
   * @param viewport the scrolling element
   * @param content where the entries go (the viewport itself, or a `<tbody>` inside it)
   * @param spacer makes an empty element that can stand in for entries (a `<div>`, a `<tr>`)
   */
  constructor(viewport: HTMLElement, content: HTMLElement, spacer: () => HTMLElement, estimate = 40) {
    this.#viewport = viewport;
    this.#content = content;
    this.#estimate = estimate;
    this.#top = spacer();
    this.#bottom = spacer();
    viewport.addEventListener(
      'scroll',
      () => {
        // The reader scrolled away from the end (or back to it): follow new entries only at the end.
        this.#stuck = this.#atEnd();
        this.#render(false);
      },
      { passive: true },
    );
  }

  /** Whether the view follows the end as entries arrive (the reader has not scrolled up). */
  get following(): boolean {
    return this.#stuck;
  }

  /** How many entries are in the DOM now (for tests and the benchmark). */
  get renderedCount(): number {
    return this.#content.childElementCount - (this.#items.length > WHOLE_LIMIT ? 2 : 0);
  }

  /** Replaces the entries and renders the window. */
  update(items: readonly ListItem[]): void {
    this.#items = items;
    this.#render(this.#stuck);
  }

  #atEnd(): boolean {
    const v = this.#viewport;
    return v.scrollTop + v.clientHeight >= v.scrollHeight - 8;
  }

  #node(item: ListItem): HTMLElement {
    const cached = this.#nodes.get(item.key);
    if (
      cached !== undefined &&
      cached.deps.length === item.deps.length &&
      cached.deps.every((dep, i) => dep === item.deps[i])
    )
      return cached.node;
    const node = item.render();
    this.#nodes.set(item.key, { deps: item.deps, node });
    return node;
  }

  #render(stickToEnd: boolean): void {
    const items = this.#items;
    if (items.length <= WHOLE_LIMIT) {
      const nodes = items.map((item) => this.#node(item));
      if (!sameChildren(this.#content, nodes)) this.#content.replaceChildren(...nodes);
      this.#forget(items);
      if (stickToEnd) this.#viewport.scrollTop = this.#viewport.scrollHeight;
      return;
    }
    const heightOf = (item: ListItem): number => this.#heights.get(item.key) ?? this.#estimate;
    let total = 0;
    for (const item of items) total += heightOf(item);
    // Where the entries start inside the viewport (a header above a table body, say).
    const offset = this.#content === this.#viewport ? 0 : this.#content.offsetTop;
    const viewTop = stickToEnd
      ? Math.max(0, total - this.#viewport.clientHeight)
      : Math.max(0, this.#viewport.scrollTop - offset);
    const from = viewTop - OVERSCAN;
    const to = viewTop + this.#viewport.clientHeight + OVERSCAN;
    let start = 0;
    let y = 0;
    while (start < items.length && y + heightOf(items[start]!) < from) y += heightOf(items[start++]!);
    const before = y;
    let end = start;
    while (end < items.length && y < to) y += heightOf(items[end++]!);
    const after = total - y;
    const shown = items.slice(start, end);
    const nodes = shown.map((item) => this.#node(item));
    this.#top.style.height = `${before}px`;
    this.#bottom.style.height = `${after}px`;
    const children = [this.#top, ...nodes, this.#bottom];
    if (!sameChildren(this.#content, children)) this.#content.replaceChildren(...children);
    for (let i = 0; i < shown.length; i++) {
      const height = nodes[i]!.getBoundingClientRect().height;
      if (height > 0) this.#heights.set(shown[i]!.key, height);
    }
    if (stickToEnd) this.#viewport.scrollTop = this.#viewport.scrollHeight;
    // Cached nodes far from the window are dropped, so a long session holds few nodes.
    if (this.#nodes.size > 4 * WHOLE_LIMIT) this.#forget(shown);
  }

  /** Drops cached nodes of entries not in `keep`. */
  #forget(keep: readonly ListItem[]): void {
    if (this.#nodes.size <= keep.length) return;
    const keys = new Set(keep.map((item) => item.key));
    for (const key of this.#nodes.keys()) if (!keys.has(key)) this.#nodes.delete(key);
  }
}

function sameChildren(parent: HTMLElement, nodes: readonly Node[]): boolean {
  if (parent.childNodes.length !== nodes.length) return false;
  for (let i = 0; i < nodes.length; i++) if (parent.childNodes[i] !== nodes[i]) return false;
  return true;
}
