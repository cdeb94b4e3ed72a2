/**
 * The lines of a document as an immutable implicit treap: each node is one line (its content and
 * line end), ordered by line number, and knows how many lines and UTF-16 code units its subtree
 * holds. Finding a line by number or by offset, and replacing a run of lines, cost O(log n) node
 * visits (expected) plus the size of what is inserted; nothing is ever recomputed from the whole
 * text. Nodes are never mutated once returned, so a tree is a snapshot: a change that fails half
 * way simply drops the new tree.
 * @internal
 */
import type { SplitLine } from './split-lines.js';

/** One line, and the sums over its subtree. @internal */
export interface LineNode {
  readonly content: string;
  readonly eol: string;
  readonly priority: number;
  readonly left: LineNode | null;
  readonly right: LineNode | null;
  /** Lines in this subtree. */
  readonly count: number;
  /** UTF-16 code units in this subtree, line ends included. */
  readonly length: number;
}

// Deterministic priorities (xorshift32): the tree's shape, and so every benchmark, is reproducible.
let seed = 0x9e3779b9;
function nextPriority(): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return seed >>> 0;
}

function make(
  content: string,
  eol: string,
  priority: number,
  left: LineNode | null,
  right: LineNode | null,
): LineNode {
  return {
    content,
    eol,
    priority,
    left,
    right,
    count: (left?.count ?? 0) + 1 + (right?.count ?? 0),
    length: (left?.length ?? 0) + content.length + eol.length + (right?.length ?? 0),
  };
}

/** The lines of `a` followed by those of `b`. @internal */
export function merge(a: LineNode | null, b: LineNode | null): LineNode | null {
  if (a === null) return b;
  if (b === null) return a;
  if (a.priority > b.priority) return make(a.content, a.eol, a.priority, a.left, merge(a.right, b));
  return make(b.content, b.eol, b.priority, merge(a, b.left), b.right);
}

/** The first `k` lines of `tree`, and the rest. @internal */
export function split(tree: LineNode | null, k: number): [LineNode | null, LineNode | null] {
  if (tree === null) return [null, null];
  const leftCount = tree.left?.count ?? 0;
  if (k <= leftCount) {
    const [before, after] = split(tree.left, k);
    return [before, make(tree.content, tree.eol, tree.priority, after, tree.right)];
  }
  const [before, after] = split(tree.right, k - leftCount - 1);
  return [make(tree.content, tree.eol, tree.priority, tree.left, before), after];
}

interface Building {
  content: string;
  eol: string;
  priority: number;
  left: Building | null;
  right: Building | null;
}

function freeze(node: Building | null): LineNode | null {
  if (node === null) return null;
  return make(node.content, node.eol, node.priority, freeze(node.left), freeze(node.right));
}

/** A tree of `lines`, in order, built in linear time (a Cartesian tree on random priorities). @internal */
export function build(lines: readonly SplitLine[]): LineNode | null {
  const spine: Building[] = [];
  for (const line of lines) {
    const node: Building = {
      content: line.content,
      eol: line.eol,
      priority: nextPriority(),
      left: null,
      right: null,
    };
    let last: Building | null = null;
    while (spine.length > 0 && (spine[spine.length - 1] as Building).priority < node.priority) {
      last = spine.pop() as Building;
    }
    node.left = last;
    if (spine.length > 0) (spine[spine.length - 1] as Building).right = node;
    spine.push(node);
  }
  return freeze(spine[0] ?? null);
}

/** The node of line `index` (0 ≤ index < tree.count). @internal */
export function lineAt(tree: LineNode, index: number): LineNode {
  let node: LineNode | null = tree;
  let wanted = index;
  while (node !== null) {
    const leftCount = node.left?.count ?? 0;
    if (wanted < leftCount) node = node.left;
    else if (wanted === leftCount) return node;
    else {
      wanted -= leftCount + 1;
      node = node.right;
    }
  }
  throw new RangeError(`line ${index} is not in the tree`);
}

/** The UTF-16 offset at which line `index` starts (0 ≤ index < tree.count). @internal */
export function offsetOfLine(tree: LineNode, index: number): number {
  let node: LineNode | null = tree;
  let wanted = index;
  let offset = 0;
  while (node !== null) {
    const leftCount = node.left?.count ?? 0;
    if (wanted < leftCount) node = node.left;
    else {
      offset += node.left?.length ?? 0;
      if (wanted === leftCount) return offset;
      offset += node.content.length + node.eol.length;
      wanted -= leftCount + 1;
      node = node.right;
    }
  }
  throw new RangeError(`line ${index} is not in the tree`);
}

/** The line holding UTF-16 offset `offset` (0 ≤ offset ≤ tree.length), and where it starts. @internal */
export function lineAtOffset(
  tree: LineNode,
  offset: number,
): { line: number; start: number; node: LineNode } {
  let node: LineNode = tree;
  let line = 0;
  let start = 0;
  for (;;) {
    const leftLength = node.left?.length ?? 0;
    const own = node.content.length + node.eol.length;
    if (offset - start < leftLength && node.left !== null) {
      node = node.left;
    } else if (offset - start < leftLength + own || node.right === null) {
      return { line: line + (node.left?.count ?? 0), start: start + leftLength, node };
    } else {
      line += (node.left?.count ?? 0) + 1;
      start += leftLength + own;
      node = node.right;
    }
  }
}

/** Every line of `tree` in order, each as its content followed by its line end. @internal */
export function collect(tree: LineNode | null, into: string[]): string[] {
  if (tree === null) return into;
  collect(tree.left, into);
  into.push(tree.content, tree.eol);
  collect(tree.right, into);
  return into;
}
