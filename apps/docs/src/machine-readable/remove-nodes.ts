import type { Element, ElementContent } from 'hast';
import { matches } from 'hast-util-select';

/** Removes, in place, every descendant of `root` that matches the CSS `selector` (with its subtree). */
export function remove(root: Element, selector: string): void {
  const keep = (node: ElementContent): boolean => node.type !== 'element' || !matches(selector, node);
  const walk = (element: Element): void => {
    element.children = element.children.filter(keep);
    for (const child of element.children) if (child.type === 'element') walk(child);
  };
  walk(root);
}
