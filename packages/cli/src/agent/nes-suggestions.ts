import type { NesSuggestion } from '@acp-kit/schema';
import type { NesAgentOptions, NesSessionView, NesSuggestCall, TextDocument } from '@acp-kit/sdk/nes';

const WORD = /[A-Za-z_$][A-Za-z0-9_$]*/g;
const WORD_CHAR = /[A-Za-z0-9_$]/;

/** A rename the editor made by hand: one whole word `from` replaced by `to`, at `offset` (UTF-16). */
interface HandRename {
  readonly from: string;
  readonly to: string;
  readonly offset: number;
}

/** The whole words of `text` with their UTF-16 offsets, in order. */
function words(text: string): { word: string; offset: number }[] {
  return [...text.matchAll(WORD)].map((m) => ({ word: m[0], offset: m.index }));
}

/** The word of `text` spanning UTF-16 offset `at` (or ending there), if any. */
function wordAround(text: string, at: number): { word: string; start: number; end: number } | undefined {
  let start = at;
  let end = at;
  while (start > 0 && WORD_CHAR.test(text[start - 1]!)) start--;
  while (end < text.length && WORD_CHAR.test(text[end]!)) end++;
  return start === end ? undefined : { word: text.slice(start, end), start, end };
}

/**
 * The rename a change made, when it replaced exactly one whole word by another: the texts differ
 * in one span (common prefix and suffix stripped), and the words around that span before and
 * after are both identifiers.
 */
export function handRename(before: string, after: string): HandRename | undefined {
  let prefix = 0;
  const max = Math.min(before.length, after.length);
  while (prefix < max && before[prefix] === after[prefix]) prefix++;
  let suffix = 0;
  while (suffix < max - prefix && before[before.length - 1 - suffix] === after[after.length - 1 - suffix])
    suffix++;
  const old = wordAround(before, prefix);
  const now = wordAround(after, prefix);
  if (old === undefined || now === undefined || old.start !== now.start || old.word === now.word)
    return undefined;
  if (old.end < before.length - suffix || now.end < after.length - suffix) return undefined;
  return { from: old.word, to: now.word, offset: now.start };
}

function takes(session: NesSessionView, kind: 'jump' | 'rename' | 'searchAndReplace'): boolean {
  const advertised = (session.clientKinds as Record<string, unknown>)[kind];
  return advertised !== undefined && advertised !== null;
}

/**
 * The reference agent's next edit suggestions, deterministic so a test can predict them
 * (positions in the connection's encoding, suggestion IDs `s1`, `s2`… per NES session):
 * - after a change that renamed one whole word, the other occurrences of the old name: a
 *   `rename` to the new name at the first of them and a `searchAndReplace` of the old name (each
 *   when the client takes it), else one `edit` replacing every other occurrence;
 * - after a typed prefix (a word of two or more characters ending at the cursor that begins a
 *   longer word elsewhere in the document), an `edit` completing it with the first such word;
 * - a `jump` to the next occurrence of the word at the cursor (wrapping), when the client takes
 *   jumps.
 */
export function referenceNes(): NesAgentOptions {
  const renames = new Map<string, HandRename>();
  const counters = new Map<string, number>();
  const key = (session: NesSessionView, document: TextDocument) => `${session.sessionId}\n${document.uri}`;
  const nextId = (session: NesSessionView) => {
    const n = (counters.get(session.sessionId) ?? 0) + 1;
    counters.set(session.sessionId, n);
    return `s${n}`;
  };
  return {
    capabilities: {
      events: {
        document: {
          didOpen: {},
          didChange: { syncKind: 'incremental' },
          didClose: {},
          didSave: {},
          didFocus: {},
        },
      },
      context: { editHistory: { maxCount: 8 } },
    },
    positionEncodings: ['utf-16', 'utf-32', 'utf-8'],
    limits: { sessionsPerConnection: 8, documentsPerSession: 64, maxDocumentLength: 4 * 1024 * 1024 },
    changed(document, previousText, session) {
      const rename = handRename(previousText, document.text);
      if (rename === undefined) renames.delete(key(session, document));
      else renames.set(key(session, document), rename);
    },
    suggest({ session, document, position }: NesSuggestCall): NesSuggestion[] {
      const text = document.text;
      const uri = document.uri;
      const at = (offset: number) => document.positionAt(offset);
      const out: NesSuggestion[] = [];
      const rename = renames.get(key(session, document));
      if (rename !== undefined) {
        const others = words(text).filter((w) => w.word === rename.from);
        if (others.length > 0) {
          if (takes(session, 'rename'))
            out.push({
              kind: 'rename',
              suggestionId: nextId(session),
              uri,
              // The symbol still to rename: the first occurrence that keeps the old name (the one
              // renamed by hand already has the new one, so a rename there would change nothing).
              position: at(others[0]!.offset),
              newName: rename.to,
            });
          if (takes(session, 'searchAndReplace'))
            out.push({
              kind: 'searchAndReplace',
              suggestionId: nextId(session),
              uri,
              search: rename.from,
              replace: rename.to,
              isRegex: false,
            });
          if (out.length === 0) {
            const edits = others.map((w) => ({
              range: { start: at(w.offset), end: at(w.offset + w.word.length) },
              newText: rename.to,
            }));
            out.push({
              kind: 'edit',
              suggestionId: nextId(session),
              uri,
              edits: edits as [(typeof edits)[0], ...typeof edits],
            });
          }
          return out;
        }
      }
      const cursor = document.offsetAt(position);
      const typed = wordAround(text, cursor);
      if (typed !== undefined && typed.end === cursor && typed.word.length >= 2) {
        const completion = words(text).find(
          (w) => w.word.length > typed.word.length && w.word.startsWith(typed.word),
        );
        if (completion !== undefined) {
          const rest = completion.word.slice(typed.word.length);
          out.push({
            kind: 'edit',
            suggestionId: nextId(session),
            uri,
            edits: [{ range: { start: at(cursor), end: at(cursor) }, newText: rest }],
          });
        }
      }
      if (typed !== undefined && takes(session, 'jump')) {
        const all = words(text).filter((w) => w.word === typed.word);
        const next = all.find((w) => w.offset > typed.start) ?? all.find((w) => w.offset < typed.start);
        if (next !== undefined)
          out.push({ kind: 'jump', suggestionId: nextId(session), uri, position: at(next.offset) });
      }
      return out;
    },
  };
}
