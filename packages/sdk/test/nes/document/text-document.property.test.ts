import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  POSITION_ENCODINGS,
  type PositionEncoding,
  type TextContentChange,
  TextDocument,
  type TextPosition,
} from '../../../src/nes/index.js';
import { ReferenceDocument } from './reference-document.js';

// Pieces that exercise every rule: ASCII, 2- and 3-byte UTF-8, an astral character (a surrogate
// pair), every line end, lone surrogates (which can pair up across an edit), and empty lines.
const PIECES = ['a', 'b', ' ', 'é', '€', '😀', '𝄞', '\n', '\r', '\r\n', '\n\n', '\uD83D', '\uDE00'];
const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((parts) => parts.join(''));
const encoding = fc.constantFrom(...POSITION_ENCODINGS);

// Positions are drawn past the last line and past each line's end too, to exercise clamping.
const position = fc.record({ line: fc.nat({ max: 12 }), character: fc.nat({ max: 30 }) });

function ordered(a: TextPosition, b: TextPosition): [TextPosition, TextPosition] {
  const aFirst = a.line < b.line || (a.line === b.line && a.character <= b.character);
  return aFirst ? [a, b] : [b, a];
}

const change: fc.Arbitrary<TextContentChange> = fc.oneof(
  { weight: 1, arbitrary: text.map((replacement) => ({ text: replacement, range: null })) },
  {
    weight: 8,
    arbitrary: fc.tuple(position, position, text).map(([a, b, inserted]) => {
      const [start, end] = ordered(a, b);
      return { range: { start, end }, text: inserted };
    }),
  },
);
const notifications = fc.array(fc.array(change, { minLength: 1, maxLength: 4 }), {
  minLength: 1,
  maxLength: 12,
});

function expectSameDocument(model: TextDocument, reference: ReferenceDocument): void {
  expect(model.text).toBe(reference.text);
  expect(model.length).toBe(reference.text.length);
  const lines = reference.lines();
  expect(model.lineCount).toBe(lines.length);
  lines.forEach((line, number) => {
    expect(model.lineText(number)).toBe(line.content);
  });
  for (const inEncoding of POSITION_ENCODINGS) {
    for (let offset = -1; offset <= reference.text.length + 1; offset++) {
      expect(model.positionAt(offset, inEncoding)).toEqual(reference.positionAt(offset, inEncoding));
    }
    for (let line = 0; line <= lines.length; line++) {
      const longest = (lines[line]?.content.length ?? 0) * 4 + 2;
      for (let character = 0; character <= longest; character++) {
        expect(model.offsetAt({ line, character }, inEncoding)).toBe(
          reference.offsetAt({ line, character }, inEncoding),
        );
      }
    }
  }
}

describe('TextDocument against the string-slicing reference', () => {
  // Long: fast-check runs hundreds of generated edit sequences in every encoding (59 s seen on a loaded 2-core machine).
  it('holds the same text, lines and positions after every notification, in every encoding', () => {
    fc.assert(
      fc.property(text, encoding, notifications, (initial, negotiated, sequence) => {
        const model = TextDocument.open(
          { uri: 'file:///a.txt', languageId: 'plaintext', version: 1, text: initial },
          { encoding: negotiated },
        );
        const reference = new ReferenceDocument(initial, negotiated);
        expectSameDocument(model, reference);
        sequence.forEach((contentChanges, i) => {
          model.applyChange({ version: i + 2, contentChanges });
          reference.apply(contentChanges);
          expect(model.version).toBe(i + 2);
          expectSameDocument(model, reference);
        });
      }),
      { numRuns: 300 },
    );
  }, 180_000);

  it('gives the text of a range as the reference slices it', () => {
    fc.assert(
      fc.property(text, encoding, position, position, (initial, inEncoding, a, b) => {
        const [start, end] = ordered(a, b);
        const model = TextDocument.open({
          uri: 'file:///a.txt',
          languageId: 'plaintext',
          version: 0,
          text: initial,
        });
        const reference = new ReferenceDocument(initial);
        const expected = initial.slice(
          reference.offsetAt(start, inEncoding),
          reference.offsetAt(end, inEncoding),
        );
        expect(model.getText({ start, end }, inEncoding)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('converts every position that starts a code point to each encoding and back unchanged', () => {
    fc.assert(
      fc.property(text, encoding, encoding, (initial, from, to) => {
        const model = TextDocument.open({
          uri: 'file:///a.txt',
          languageId: 'plaintext',
          version: 0,
          text: initial,
        });
        for (let offset = 0; offset <= initial.length; offset++) {
          const position = model.positionAt(offset, from);
          const there = model.convertPosition(position, from, to);
          expect(model.convertPosition(there, to, from)).toEqual(position);
          expect(model.offsetAt(there, to)).toBe(model.offsetAt(position, from));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('TextDocument on a long edit sequence', () => {
  it('stays equal to the reference over hundreds of small edits in one document', () => {
    const encodings: PositionEncoding[] = [...POSITION_ENCODINGS];
    for (const negotiated of encodings) {
      fc.assert(
        fc.property(fc.array(change, { minLength: 200, maxLength: 400 }), (edits) => {
          const initial = 'line one\r\nline 😀 two\rthree\n\nfive €\n';
          const model = TextDocument.open(
            { uri: 'file:///b.txt', languageId: 'plaintext', version: 1, text: initial },
            { encoding: negotiated },
          );
          const reference = new ReferenceDocument(initial, negotiated);
          edits.forEach((edit, i) => {
            model.applyChange({ version: i + 2, contentChanges: [edit] });
            reference.apply([edit]);
          });
          expect(model.text).toBe(reference.text);
          expect(model.lineCount).toBe(reference.lines().length);
        }),
        { numRuns: 20 },
      );
    }
  });
});
