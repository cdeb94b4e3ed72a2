import { describe, expect, it } from 'vitest';
import {
  type TextDocumentChangeParams,
  TextDocument,
  TextDocumentError,
  type TextDocumentOpenParams,
} from '../../../src/nes/index.js';

const URI = 'file:///work/src/main.ts';

function open(text: string, version = 1, encoding?: 'utf-16' | 'utf-32' | 'utf-8'): TextDocument {
  return TextDocument.open(
    { uri: URI, languageId: 'typescript', version, text },
    encoding === undefined ? {} : { encoding },
  );
}

function refusal(run: () => unknown): TextDocumentError {
  try {
    run();
  } catch (error) {
    if (error instanceof TextDocumentError) return error;
    throw error;
  }
  throw new Error('expected a TextDocumentError, nothing was thrown');
}

describe('opening a document', () => {
  it('takes the params of a document/didOpen as they arrive, extra fields included', () => {
    const params = {
      sessionId: 'nes-1',
      uri: URI,
      languageId: 'typescript',
      version: 7,
      text: 'a\nb',
      _meta: null,
    };
    const document = TextDocument.open(params);
    expect([document.uri, document.languageId, document.version, document.text]).toEqual([
      URI,
      'typescript',
      7,
      'a\nb',
    ]);
    expect(document.lineCount).toBe(2);
    expect(document.encoding).toBe('utf-16');
  });

  it('refuses a field of the wrong shape at its pointer', () => {
    const error = refusal(() => TextDocument.open({ uri: URI, languageId: 'ts', version: 1.5, text: '' }));
    expect([error.code, error.pointer, error.rpcCode]).toEqual(['invalid_params', '/version', -32602]);
    expect(error.expected).toBe('an integer version');
    const missing = refusal(() =>
      TextDocument.open({ uri: URI, languageId: 'ts', version: 1 } as unknown as TextDocumentOpenParams),
    );
    expect(missing.pointer).toBe('/text');
    expect(missing.message).toBe('/text: expected a string, found undefined');
  });

  it('refuses a text longer than maxLength', () => {
    const error = refusal(() =>
      TextDocument.open({ uri: URI, languageId: 'ts', version: 1, text: 'abcdef' }, { maxLength: 5 }),
    );
    expect([error.code, error.pointer]).toEqual(['too_large', '/text']);
  });

  it('refuses an encoding it does not know', () => {
    const error = refusal(() => open('a', 1, 'utf-7' as 'utf-8'));
    expect(error.code).toBe('invalid_params');
  });
});

describe('applying document/didChange', () => {
  it('applies a full replacement and range edits in order, each to the result of the one before', () => {
    const document = open('hello world');
    document.applyChange({
      uri: URI,
      version: 2,
      contentChanges: [
        { range: null, text: 'one\ntwo\nthree' },
        { range: { start: { line: 1, character: 0 }, end: { line: 1, character: 3 } }, text: 'TWO' },
        { range: { start: { line: 1, character: 3 }, end: { line: 2, character: 0 } }, text: ' ' },
        { text: '', range: { start: { line: 0, character: 3 }, end: { line: 0, character: 3 } } },
      ],
    });
    expect(document.text).toBe('one\nTWO three');
    expect(document.version).toBe(2);
  });

  it('refuses a version equal to or below the current one, and keeps the document', () => {
    const document = open('abc', 5);
    for (const version of [5, 4]) {
      const error = refusal(() => document.applyChange({ version, contentChanges: [{ text: 'x' }] }));
      expect([error.code, error.pointer, error.rpcCode]).toEqual(['stale_version', '/version', -32602]);
      expect(error.expected).toBe("a version greater than the document's current 5");
    }
    expect([document.text, document.version]).toEqual(['abc', 5]);
  });

  it('points at the bad field of the third change and applies none of the changes', () => {
    const document = open('abc\ndef');
    const params = {
      version: 2,
      contentChanges: [
        { range: null, text: 'replaced' },
        { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, text: 'R' },
        { range: { start: { line: -1, character: 0 }, end: { line: 0, character: 1 } }, text: 'R' },
      ],
    };
    const error = refusal(() => document.applyChange(params));
    expect(error.pointer).toBe('/contentChanges/2/range/start/line');
    expect(error.expected).toBe('a non-negative integer (uint32)');
    expect(error.toData()).toEqual({
      pointer: '/contentChanges/2/range/start/line',
      expected: 'a non-negative integer (uint32)',
      reason: 'invalid_params',
    });
    expect([document.text, document.version]).toEqual(['abc\ndef', 1]);
  });

  it('refuses a range whose end is before its start', () => {
    const document = open('abcdef');
    const error = refusal(() =>
      document.applyChange({
        version: 2,
        contentChanges: [
          { range: { start: { line: 0, character: 4 }, end: { line: 0, character: 2 } }, text: '' },
        ],
      }),
    );
    expect(error.pointer).toBe('/contentChanges/0/range/end');
  });

  it("refuses changes that are not an array, a change without text, and another document's URI", () => {
    const document = open('abc');
    expect(
      refusal(() => document.applyChange({ version: 2 } as unknown as TextDocumentChangeParams)).pointer,
    ).toBe('/contentChanges');
    expect(
      refusal(() =>
        document.applyChange({
          version: 2,
          contentChanges: [{ range: null }],
        } as unknown as TextDocumentChangeParams),
      ).pointer,
    ).toBe('/contentChanges/0/text');
    const other = refusal(() =>
      document.applyChange({ uri: 'file:///other.ts', version: 2, contentChanges: [] }),
    );
    expect([other.code, other.pointer]).toEqual(['invalid_params', '/uri']);
  });

  it('refuses a change that would pass maxLength and keeps the document', () => {
    const document = TextDocument.open(
      { uri: URI, languageId: 'ts', version: 1, text: 'abcd' },
      { maxLength: 6 },
    );
    const at = { line: 0, character: 4 };
    document.applyChange({ version: 2, contentChanges: [{ range: { start: at, end: at }, text: 'ef' }] });
    const error = refusal(() =>
      document.applyChange({
        version: 3,
        contentChanges: [
          { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, text: '' },
          { range: { start: at, end: at }, text: 'xyz' },
        ],
      }),
    );
    expect([error.code, error.pointer]).toEqual(['too_large', '/contentChanges/1/text']);
    expect([document.text, document.version]).toEqual(['abcdef', 2]);
  });

  it('accepts a notification without changes as a new version of the same text', () => {
    const document = open('abc');
    document.applyChange({ version: 9, contentChanges: [] });
    expect([document.text, document.version]).toEqual(['abc', 9]);
  });

  it('joins a lone \\r and an inserted \\n into one CRLF line end', () => {
    const document = open('a\rb');
    document.applyChange({
      version: 2,
      contentChanges: [
        { range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, text: '\nc' },
      ],
    });
    expect(document.text).toBe('a\r\ncb');
    expect(document.lineCount).toBe(2);
    expect(document.lineText(1)).toBe('cb');
  });

  it('reads ranges in the negotiated encoding', () => {
    const document = open('é😀x', 1, 'utf-8');
    document.applyChange({
      version: 2,
      contentChanges: [
        { range: { start: { line: 0, character: 2 }, end: { line: 0, character: 6 } }, text: '-' },
      ],
    });
    expect(document.text).toBe('é-x');
  });
});

describe('positions', () => {
  const text = 'a😀b\r\néx\rlast';

  it('counts an astral character as 2 in UTF-16, 1 in UTF-32 and 4 in UTF-8', () => {
    const document = open(text);
    const afterEmoji = 3; // UTF-16 offset after 'a😀'
    expect(document.positionAt(afterEmoji, 'utf-16')).toEqual({ line: 0, character: 3 });
    expect(document.positionAt(afterEmoji, 'utf-32')).toEqual({ line: 0, character: 2 });
    expect(document.positionAt(afterEmoji, 'utf-8')).toEqual({ line: 0, character: 5 });
    expect(document.convertPosition({ line: 1, character: 3 }, 'utf-8', 'utf-16')).toEqual({
      line: 1,
      character: 2,
    });
  });

  it('rounds a character inside a code point down to the code point start', () => {
    const document = open(text);
    expect(document.offsetAt({ line: 0, character: 2 }, 'utf-16')).toBe(1);
    for (const inside of [2, 3, 4])
      expect(document.offsetAt({ line: 0, character: inside }, 'utf-8')).toBe(1);
    expect(document.offsetAt({ line: 1, character: 1 }, 'utf-8')).toBe(6);
    expect(document.positionAt(2, 'utf-16')).toEqual({ line: 0, character: 1 });
  });

  it('clamps past a line end to the line end, and past the last line to the document end', () => {
    const document = open(text);
    expect(document.offsetAt({ line: 0, character: 99 })).toBe(4);
    expect(document.offsetAt({ line: 1, character: 99 })).toBe(8);
    expect(document.offsetAt({ line: 7, character: 0 })).toBe(text.length);
    expect(document.positionAt(5)).toEqual({ line: 0, character: 4 }); // between \r and \n
    expect(document.positionAt(-3)).toEqual({ line: 0, character: 0 });
    expect(document.positionAt(1000)).toEqual({ line: 2, character: 4 });
  });

  it('counts lines at CRLF, CR and LF, with an empty last line after a final line end', () => {
    const document = open('a\r\nb\rc\n\n');
    expect(document.lineCount).toBe(5);
    expect([0, 1, 2, 3, 4, 5].map((line) => document.lineText(line))).toEqual([
      'a',
      'b',
      'c',
      '',
      '',
      undefined,
    ]);
  });

  it('says whether a position lies inside the document without clamping', () => {
    const document = open(text);
    expect(() => document.assertInside({ line: 0, character: 4 }, '/position')).not.toThrow();
    const pastLine = refusal(() => document.assertInside({ line: 0, character: 5 }, '/position'));
    expect([pastLine.code, pastLine.pointer]).toEqual(['outside_document', '/position/character']);
    const pastEnd = refusal(() => document.assertInside({ line: 3, character: 0 }, '/position'));
    expect([pastEnd.code, pastEnd.pointer]).toEqual(['outside_document', '/position/line']);
    expect(() => document.assertInside({ line: 0, character: 6 }, '/position', 'utf-8')).not.toThrow();
    expect(refusal(() => document.assertInside({ line: 0, character: 7 }, '', 'utf-8')).pointer).toBe(
      '/character',
    );
  });

  it('refuses a malformed position at its pointer', () => {
    const document = open(text);
    expect(refusal(() => document.offsetAt({ line: 0, character: 1.5 })).pointer).toBe('/character');
    expect(refusal(() => document.positionAt(Number.NaN)).code).toBe('invalid_params');
  });
});
