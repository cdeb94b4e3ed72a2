/**
 * The NES panel's decisions, without the page's DOM: whether the agent offers next edit suggestions,
 * the change one edit of the textarea made, what a suggestion says and what accepting it does to
 * the text. Positions here are the editor's (zero-based line and UTF-16 character, lines split at
 * `\n` as a textarea keeps them), counted by the SDK's `TextDocument`; NesClient converts them to
 * the negotiated encoding.
 */
import { TextDocument } from '@acp-kit/sdk/nes';

/** A zero-based line and UTF-16 character. */
export interface EditorPosition {
  line: number;
  character: number;
}

/** One change of the editor's text: `range` in the text before it. */
export interface EditorTextChange {
  range: { start: EditorPosition; end: EditorPosition };
  text: string;
}

/** A suggestion as the panel reads it (the kinds it knows, and any other kind kept as it came). */
export interface PanelSuggestion {
  kind: string;
  suggestionId: string;
  uri?: string;
  edits?: { range: { start: EditorPosition; end: EditorPosition }; newText: string }[];
  cursorPosition?: EditorPosition | null;
  position?: EditorPosition;
  newName?: string;
  search?: string;
  replace?: string;
  isRegex?: boolean | null;
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/** Whether an agent's capabilities (v2 `capabilities`, v1 `agentCapabilities`) offer NES. */
export function nesOffered(capabilities: unknown): boolean {
  const nes = record(capabilities)?.nes;
  return nes !== undefined && nes !== null;
}

/**
 * The editor's text as the SDK's document model (`TextDocument` of `@acp-kit/sdk/nes`), for
 * offsets and positions in UTF-16, clamped as LSP clamps them (a character past its line's end
 * means the line's end, a line past the last one the end of the text).
 */
export function editorDocument(text: string): TextDocument {
  return TextDocument.open({ uri: 'inspector:editor', languageId: 'plaintext', version: 0, text });
}

/**
 * The one change that turns `before` into `after` (the differing span, common prefix and suffix
 * kept), as an incremental `didChange` carries it; undefined when the texts are equal.
 */
export function textChange(before: string, after: string): EditorTextChange | undefined {
  if (before === after) return undefined;
  const max = Math.min(before.length, after.length);
  let prefix = 0;
  while (prefix < max && before[prefix] === after[prefix]) prefix++;
  // A surrogate pair is never split: the change starts before its high half.
  if (prefix > 0 && /[\uD800-\uDBFF]/.test(before[prefix - 1]!)) prefix--;
  let suffix = 0;
  while (suffix < max - prefix && before[before.length - 1 - suffix] === after[after.length - 1 - suffix])
    suffix++;
  if (suffix > 0 && /[\uDC00-\uDFFF]/.test(before[before.length - suffix]!)) suffix--;
  const doc = editorDocument(before);
  return {
    range: { start: doc.positionAt(prefix), end: doc.positionAt(before.length - suffix) },
    text: after.slice(prefix, after.length - suffix),
  };
}

const where = (p: EditorPosition | undefined) => (p === undefined ? '?' : `${p.line + 1}:${p.character + 1}`);

/** One line saying what a suggestion proposes (positions shown one-based, as editors show them). */
export function describeSuggestion(s: PanelSuggestion): string {
  switch (s.kind) {
    case 'edit':
      return (s.edits ?? [])
        .map((e) =>
          e.range.start.line === e.range.end.line && e.range.start.character === e.range.end.character
            ? `insert ${JSON.stringify(e.newText)} at ${where(e.range.start)}`
            : `replace ${where(e.range.start)}–${where(e.range.end)} with ${JSON.stringify(e.newText)}`,
        )
        .join('; ');
    case 'jump':
      return `jump to ${where(s.position)}`;
    case 'rename':
      return `rename the symbol at ${where(s.position)} to ${JSON.stringify(s.newName ?? '')}`;
    case 'searchAndReplace':
      return `replace every ${s.isRegex ? 'match of /' : '"'}${s.search ?? ''}${s.isRegex ? '/' : '"'} with ${JSON.stringify(s.replace ?? '')}`;
    default:
      return `a ${s.kind} suggestion (a kind this inspector does not know; only reject it)`;
  }
}

const WORD_CHAR = /[\p{L}\p{N}_$]/u;

/**
 * What accepting a suggestion does to the editor: the new text and where the cursor goes, or
 * undefined for a kind the panel cannot apply (it can only be rejected). An `edit` applies its
 * edits (ranges in the text as it is); a `jump` moves the cursor; a `rename` (no language server
 * here) replaces the whole word at its position everywhere by the new name; a `searchAndReplace`
 * replaces every match. A regex that does not compile throws (said to the user as a failure).
 */
export function applySuggestion(
  text: string,
  s: PanelSuggestion,
): { text: string; cursor: number } | undefined {
  const doc = editorDocument(text);
  if (s.kind === 'edit' && s.edits !== undefined) {
    const spans = s.edits
      .map((e) => ({
        start: doc.offsetAt(e.range.start),
        end: doc.offsetAt(e.range.end),
        text: e.newText,
      }))
      .sort((a, b) => b.start - a.start);
    let out = text;
    for (const span of spans) out = out.slice(0, span.start) + span.text + out.slice(span.end);
    const last = spans[0];
    const cursor = s.cursorPosition
      ? editorDocument(out).offsetAt(s.cursorPosition)
      : last === undefined
        ? 0
        : last.start + last.text.length;
    return { text: out, cursor };
  }
  if (s.kind === 'jump' && s.position !== undefined) return { text, cursor: doc.offsetAt(s.position) };
  if (s.kind === 'rename' && s.position !== undefined && s.newName !== undefined) {
    const at = doc.offsetAt(s.position);
    let start = at;
    let end = at;
    while (start > 0 && WORD_CHAR.test(text[start - 1]!)) start--;
    while (end < text.length && WORD_CHAR.test(text[end]!)) end++;
    if (start === end) return { text, cursor: at };
    const word = text.slice(start, end);
    const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const out = text.replace(
      new RegExp(`(?<![\\p{L}\\p{N}_$])${escaped}(?![\\p{L}\\p{N}_$])`, 'gu'),
      () => s.newName!,
    );
    return { text: out, cursor: start + s.newName.length };
  }
  if (s.kind === 'searchAndReplace' && s.search !== undefined && s.replace !== undefined) {
    if (s.search === '') return { text, cursor: 0 };
    const out = s.isRegex
      ? text.replace(new RegExp(s.search, 'g'), s.replace)
      : text.split(s.search).join(s.replace);
    return { text: out, cursor: 0 };
  }
  return undefined;
}

/** The NES panel's part of the page: what the agent offers and the NES session the editor runs. */
export interface NesState {
  /** The agent's initialize answer offered `nes` (the panel is shown). */
  offered: boolean;
  /** The NES session the editor's document lives in, once `nes/start` answered. */
  sessionId: string | undefined;
  /** The document's version and text as the agent was last told them. */
  version: number;
  text: string;
  /** The suggestions shown, not yet accepted or rejected. */
  suggestions: PanelSuggestion[];
}

/** The NES state of a page that has not initialized. */
export function freshNes(): NesState {
  return { offered: false, sessionId: undefined, version: 0, text: '', suggestions: [] };
}
