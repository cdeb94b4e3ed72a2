/**
 * The latest view of each entity of one kind (tool calls, terminals, plans…) by its ID, in
 * first-reported order, with the frozen list a snapshot shows. The list is rebuilt only after a
 * change; otherwise snapshots share the previous one.
 */
export class KeyedViews<V> {
  readonly #byId = new Map<string, V>();
  #list: readonly V[] | null = null;

  get(id: string): V | undefined {
    return this.#byId.get(id);
  }

  /** Stores `view` under `id` (a new ID goes last; a known one keeps its place). */
  set(id: string, view: V): void {
    this.#byId.set(id, view);
    this.#list = null;
  }

  /** Removes the view under `id`; false when there was none (the list is then kept). */
  delete(id: string): boolean {
    if (!this.#byId.delete(id)) return false;
    this.#list = null;
    return true;
  }

  /** The frozen list of every view, shared across snapshots until the next change. */
  views(): readonly V[] {
    this.#list ??= Object.freeze([...this.#byId.values()]);
    return this.#list;
  }
}
