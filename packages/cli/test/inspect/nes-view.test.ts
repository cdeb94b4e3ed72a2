/**
 * The inspector's NES panel decisions, without a browser: when the panel shows, the incremental
 * change one textarea edit makes, what each suggestion kind says, and what accepting it does to
 * the text. The Chromium test beside this file (inspect-nes.test.ts) drives the panel itself.
 */
import { TextDocument } from '@acp-kit/sdk/nes';
import { describe, expect, it } from 'vitest';
import {
  applySuggestion,
  describeSuggestion,
  editorDocument,
  nesOffered,
  textChange,
} from '../../src/inspector-app/src/nes-view.js';

/** Applies an incremental change with the agent's document model (ranges in the text before). */
const applied = (before: string, change: NonNullable<ReturnType<typeof textChange>>) => {
  const document = TextDocument.open({ uri: 'file:///t', languageId: 'plaintext', version: 1, text: before });
  document.applyChange({ version: 2, contentChanges: [change] });
  return document.text;
};

describe("the inspector's NES panel, without a browser", () => {
  it('shows only for an agent whose capabilities carry nes (null or absent hide it)', () => {
    expect(nesOffered({ nes: {} })).toBe(true);
    expect(nesOffered({ nes: null })).toBe(false);
    expect(nesOffered({ loadSession: true })).toBe(false);
    expect(nesOffered(undefined)).toBe(false);
    expect(nesOffered('nes')).toBe(false);
  });

  it("turns line and UTF-16 character into offsets and back with the SDK's TextDocument, clamping past a line end", () => {
    const text = editorDocument('ab\n😀x\n');
    expect(text).toBeInstanceOf(TextDocument);
    expect(text.positionAt(0)).toEqual({ line: 0, character: 0 });
    expect(text.positionAt(3)).toEqual({ line: 1, character: 0 });
    expect(text.positionAt(6)).toEqual({ line: 1, character: 3 });
    expect(text.positionAt(7)).toEqual({ line: 2, character: 0 });
    expect(text.positionAt(99)).toEqual({ line: 2, character: 0 });
    expect(text.offsetAt({ line: 1, character: 2 })).toBe(5);
    expect(text.offsetAt({ line: 0, character: 50 })).toBe(2);
    expect(text.offsetAt({ line: 9, character: 0 })).toBe(7);
  });

  it('reads one textarea edit as the incremental change an agent applies to reach the same text', () => {
    const cases: [string, string][] = [
      ['const a = 1;\n', 'const a = 1;\nfo'],
      ['one\ntwo\nthree', 'one\nTWO\nthree'],
      ['one\ntwo\nthree', 'one\nthree'],
      ['x😀y', 'x😁y'],
      ['aaa', 'aaaa'],
      ['', 'hello'],
      ['hello', ''],
    ];
    for (const [before, after] of cases) {
      const change = textChange(before, after)!;
      expect(change, `${before} → ${after}`).toBeDefined();
      expect(applied(before, change)).toBe(after);
    }
    // A replaced astral character is sent whole, never half a surrogate pair.
    expect(textChange('x😀y', 'x😁y')).toEqual({
      range: { start: { line: 0, character: 1 }, end: { line: 0, character: 3 } },
      text: '😁',
    });
    expect(textChange('same', 'same')).toBeUndefined();
  });

  it('applies an edit suggestion at its range and puts the cursor after the inserted text', () => {
    const text = 'const fooBar = 1;\nfoo';
    const s = {
      kind: 'edit',
      suggestionId: 's1',
      edits: [
        { range: { start: { line: 1, character: 3 }, end: { line: 1, character: 3 } }, newText: 'Bar' },
      ],
    };
    expect(describeSuggestion(s)).toBe('insert "Bar" at 2:4');
    expect(applySuggestion(text, s)).toEqual({ text: 'const fooBar = 1;\nfooBar', cursor: text.length + 3 });
    const two = {
      kind: 'edit',
      suggestionId: 's2',
      edits: [
        { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, newText: 'X' },
        { range: { start: { line: 1, character: 0 }, end: { line: 1, character: 1 } }, newText: 'Y' },
      ],
    };
    expect(applySuggestion('a\nb', two)?.text).toBe('X\nY');
    expect(describeSuggestion(two)).toBe('replace 1:1–1:2 with "X"; replace 2:1–2:2 with "Y"');
  });

  it('moves the cursor for a jump, renames whole words for a rename, replaces every match for searchAndReplace', () => {
    const text = 'let foo = 1;\nfoo + foobar + foo';
    expect(
      applySuggestion(text, { kind: 'jump', suggestionId: 'j', position: { line: 1, character: 0 } }),
    ).toEqual({
      text,
      cursor: 13,
    });
    expect(describeSuggestion({ kind: 'jump', suggestionId: 'j', position: { line: 1, character: 0 } })).toBe(
      'jump to 2:1',
    );
    const rename = { kind: 'rename', suggestionId: 'r', position: { line: 0, character: 5 }, newName: 'bar' };
    expect(applySuggestion(text, rename)?.text).toBe('let bar = 1;\nbar + foobar + bar');
    expect(describeSuggestion(rename)).toBe('rename the symbol at 1:6 to "bar"');
    const plain = {
      kind: 'searchAndReplace',
      suggestionId: 'p',
      search: 'foo',
      replace: 'x',
      isRegex: false,
    };
    expect(applySuggestion(text, plain)?.text).toBe('let x = 1;\nx + xbar + x');
    expect(describeSuggestion(plain)).toBe('replace every "foo" with "x"');
    const regex = {
      kind: 'searchAndReplace',
      suggestionId: 'q',
      search: '\\bfoo\\b',
      replace: 'y',
      isRegex: true,
    };
    expect(applySuggestion(text, regex)?.text).toBe('let y = 1;\ny + foobar + y');
    expect(() => applySuggestion(text, { ...regex, search: '(' })).toThrow();
  });

  it('describes a suggestion kind it does not know and does not apply it (reject only)', () => {
    const unknown = { kind: '_preview', suggestionId: 'u' };
    expect(describeSuggestion(unknown)).toContain('does not know');
    expect(applySuggestion('text', unknown)).toBeUndefined();
  });
});
