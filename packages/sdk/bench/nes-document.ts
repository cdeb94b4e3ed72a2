/**
 * The NES text document model (`TextDocument` from `@acp-kit/sdk/nes`, compiled) against the
 * string-slicing reference of its property tests (test/nes/document/reference-document.ts), in
 * this one process: documents of several sizes (mixed ASCII, 2-byte and astral characters, LF and
 * some CRLF line ends), each taking BENCH_EDITS small edits, each edit its own
 * `document/didChange` (insert 1–3 characters, delete up to 3, split a line, join two lines; at
 * seeded random lines). Prints the model's cost per edit in UTF-16 and UTF-8, its growth against
 * the smallest document (flat when an edit costs what it touches, not the document), the
 * reference's cost per edit (BENCH_NAIVE_EDITS of the same edits: it rescans the whole text per
 * edit) and the ratio reference / model. Checks that both end with the same text after the
 * reference's edits. Asserts nothing about time. Target: model growth under 2× from the smallest
 * document to the largest, while reference / model grows with the document.
 *
 * Size: BENCH_SIZES (UTF-16 code units, default 100000,1000000,4000000), BENCH_EDITS (default
 * 10000), BENCH_NAIVE_EDITS (default 200). `BENCH_EDITS=500 BENCH_NAIVE_EDITS=20 npx tsx
 * bench/nes-document.ts` is a quick check that it runs.
 */
import { type TextContentChange, TextDocument } from '@acp-kit/sdk/nes';
import { ReferenceDocument } from '../test/nes/document/reference-document.js';
import { loadAverage } from './load-average.js';

const SIZES = (process.env.BENCH_SIZES ?? '100000,1000000,4000000').split(',').map(Number);
const EDITS = Number(process.env.BENCH_EDITS ?? 10_000);
const NAIVE_EDITS = Math.min(Number(process.env.BENCH_NAIVE_EDITS ?? 200), EDITS);
const WARM_UP = 1_000;

/** A seeded generator (mulberry32), so every run edits the same places. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['const', 'value', '=', 'résumé', '😀', 'return', '{', '}', 'naïve', '𝄞', 'x', '42;'];

function documentOf(size: number): { text: string; lines: number } {
  const next = random(size);
  const parts: string[] = [];
  let length = 0;
  let lines = 1;
  while (length < size) {
    let line = '  ';
    const words = 3 + Math.floor(next() * 8);
    for (let w = 0; w < words; w++) line += `${WORDS[Math.floor(next() * WORDS.length)]} `;
    line += next() < 0.1 ? '\r\n' : '\n';
    parts.push(line);
    length += line.length;
    lines += 1;
  }
  return { text: parts.join(''), lines };
}

function editsFor(lines: number, count: number, seed: number): TextContentChange[] {
  const next = random(seed);
  const edits: TextContentChange[] = [];
  for (let i = 0; i < count; i++) {
    const line = Math.floor(next() * (lines - 2));
    const character = Math.floor(next() * 40);
    const at = { line, character };
    const kind = next();
    if (kind < 0.45)
      edits.push({ range: { start: at, end: at }, text: ['a', 'é!', '😀', 'xyz'][i % 4] as string });
    else if (kind < 0.9)
      edits.push({ range: { start: at, end: { line, character: character + 1 + (i % 3) } }, text: '' });
    else if (kind < 0.95) edits.push({ range: { start: at, end: at }, text: '\n' });
    else
      edits.push({
        range: { start: { line, character: 10_000 }, end: { line: line + 1, character: 0 } },
        text: '',
      });
  }
  return edits;
}

function timeModel(text: string, edits: readonly TextContentChange[], encoding: 'utf-16' | 'utf-8'): number {
  const document = TextDocument.open(
    { uri: 'file:///bench.ts', languageId: 'typescript', version: 0, text },
    { encoding },
  );
  const start = process.hrtime.bigint();
  for (let i = 0; i < edits.length; i++) {
    document.applyChange({ version: i + 1, contentChanges: [edits[i] as TextContentChange] });
  }
  return Number(process.hrtime.bigint() - start) / 1e3 / edits.length;
}

function timeReference(text: string, edits: readonly TextContentChange[]): { perEdit: number; text: string } {
  const reference = new ReferenceDocument(text, 'utf-16');
  const start = process.hrtime.bigint();
  for (const edit of edits) reference.apply([edit]);
  return { perEdit: Number(process.hrtime.bigint() - start) / 1e3 / edits.length, text: reference.text };
}

const rows: string[][] = [];
let smallest: number | undefined;
for (const size of SIZES) {
  const { text, lines } = documentOf(size);
  const edits = editsFor(lines, EDITS, size + 1);
  timeModel(text, editsFor(lines, WARM_UP, size + 2), 'utf-16');
  const utf16 = timeModel(text, edits, 'utf-16');
  const utf8 = timeModel(text, edits, 'utf-8');
  const naive = timeReference(text, edits.slice(0, NAIVE_EDITS));
  const check = TextDocument.open({ uri: 'file:///bench.ts', languageId: 'typescript', version: 0, text });
  for (const [i, edit] of edits.slice(0, NAIVE_EDITS).entries()) {
    check.applyChange({ version: i + 1, contentChanges: [edit] });
  }
  if (check.text !== naive.text)
    throw new Error(`model and reference differ after ${NAIVE_EDITS} edits at size ${size}`);
  smallest ??= utf16;
  rows.push([
    `${(text.length / 1000).toFixed(0)} K / ${lines} lines`,
    utf16.toFixed(2),
    utf8.toFixed(2),
    `${(utf16 / smallest).toFixed(2)}x`,
    naive.perEdit.toFixed(1),
    `${(naive.perEdit / utf16).toFixed(0)}x`,
    loadAverage(),
  ]);
}

console.log(
  `NES TextDocument: ${EDITS} small edits per document (reference: first ${NAIVE_EDITS}), µs per edit`,
);
const header = [
  'document',
  'model utf-16',
  'model utf-8',
  'model growth',
  'reference',
  'reference / model',
  'load',
];
const widths = header.map((title, column) =>
  Math.max(title.length, ...rows.map((row) => (row[column] as string).length)),
);
for (const row of [header, ...rows])
  console.log(row.map((cell, column) => cell.padStart(widths[column] as number)).join('  '));
