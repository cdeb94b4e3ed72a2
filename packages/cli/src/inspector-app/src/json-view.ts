import { el } from './dom.js';

/** Messages longer than this are shown as raw text, not laid out (a hostile agent's huge line stays cheap). */
const LAYOUT_LIMIT = 20_000;

const escapeToken = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** The deepest pointer, `pointer` itself or one of its ancestors, that names a value inside `root`. */
function existing(root: unknown, pointer: string): string {
  const tokens = pointer === '' ? [] : pointer.slice(1).split('/');
  let value = root;
  let found = '';
  for (const token of tokens) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) break;
    value = (value as Record<string, unknown>)[key];
    found = `${found}/${token}`;
  }
  return found;
}

function layout(value: unknown, path: string, indent: string, targets: Set<string>): (Node | string)[] {
  let parts: (Node | string)[];
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    parts =
      value.length === 0
        ? ['[]']
        : [
            '[\n',
            ...value.flatMap((item, i) => [
              inner,
              ...layout(item, `${path}/${i}`, inner, targets),
              i < value.length - 1 ? ',\n' : '\n',
            ]),
            `${indent}]`,
          ];
  } else if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    parts =
      entries.length === 0
        ? ['{}']
        : [
            '{\n',
            ...entries.flatMap(([key, item], i) => [
              `${inner}${JSON.stringify(key)}: `,
              ...layout(item, `${path}/${escapeToken(key)}`, inner, targets),
              i < entries.length - 1 ? ',\n' : '\n',
            ]),
            `${indent}}`,
          ];
  } else parts = [JSON.stringify(value) ?? String(value)];
  return targets.has(path)
    ? [el('mark', { class: 'pointer-hit', 'data-pointer': path || '/' }, ...parts)]
    : parts;
}

/**
 * A message laid out as indented JSON with the values its schema issues point at marked (an issue
 * about a missing property marks the object that lacks it). Strings stay text nodes, never markup.
 */
export function jsonWithPointers(text: string, message: unknown, pointers: readonly string[]): HTMLElement {
  if (text.length > LAYOUT_LIMIT)
    return el('code', {}, `${text.slice(0, 2000)}… (${text.length} characters)`);
  const targets = new Set(pointers.map((pointer) => existing(message, pointer)));
  return el('pre', { class: 'json' }, ...layout(message, '', '', targets));
}
