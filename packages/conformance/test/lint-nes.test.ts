import { describe, expect, it } from 'vitest';
import { lintTranscript } from '../src/index.js';
import { TranscriptBuilder } from './helpers/transcript.js';

type Result = ReturnType<typeof lintTranscript>;
const NES_RULES = [
  'nes.suggestion.kind-advertised',
  'nes.suggest.context-requested',
  'nes.suggestion.position-inside',
  'nes.suggest.answered',
];
const nesFindings = (result: Result) =>
  result.findings.filter((f) => NES_RULES.includes(f.ruleId)).map((f) => [f.ruleId, f.line, f.pointer]);
const statusOf = (result: Result, id: string) => result.results.find((r) => r.id === id)?.status;

const URI = 'file:///w/a.ts';
/** Two lines: "const a = 1;" (12 UTF-16 units) and "é😀" (3 UTF-16 units, 2 code points, 6 bytes). */
const TEXT = 'const a = 1;\né😀';

/**
 * A client that advertised jump (not rename or searchAndReplace) and an agent that asked for
 * diagnostics context, in `encoding`; an NES session with the document open at version 1, then
 * changed to version 2 (a third line), then a suggest with `context` answered by `suggestions`.
 */
function nesTranscript(options: {
  suggestions?: unknown[];
  context?: Record<string, unknown>;
  encoding?: 'utf-8' | 'utf-32';
  version?: number;
  answer?: boolean;
}): { t: TranscriptBuilder; suggestLine: number; answerLine: number | undefined } {
  const t = new TranscriptBuilder();
  t.client({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: 2,
      info: { name: 't', version: '1' },
      capabilities: { nes: { jump: {} }, positionEncodings: ['utf-8', 'utf-32', 'utf-16'] },
    },
  });
  t.result(0, {
    protocolVersion: 2,
    info: { name: 'a', version: '1' },
    capabilities: {
      nes: {
        events: { document: { didOpen: {}, didChange: { syncKind: 'incremental' } } },
        context: { diagnostics: {} },
      },
      ...(options.encoding ? { positionEncoding: options.encoding } : {}),
    },
  });
  t.client({ jsonrpc: '2.0', id: 1, method: 'nes/start', params: {} });
  t.result(1, { sessionId: 'nes_1' });
  t.client({
    jsonrpc: '2.0',
    method: 'document/didOpen',
    params: { sessionId: 'nes_1', uri: URI, languageId: 'typescript', version: 1, text: TEXT },
  });
  const end = {
    line: 1,
    character: options.encoding === 'utf-8' ? 6 : options.encoding === 'utf-32' ? 2 : 3,
  };
  t.client({
    jsonrpc: '2.0',
    method: 'document/didChange',
    params: {
      sessionId: 'nes_1',
      uri: URI,
      version: 2,
      contentChanges: [{ range: { start: end, end }, text: '\nthird' }],
    },
  });
  const suggestLine = t.client({
    jsonrpc: '2.0',
    id: 2,
    method: 'nes/suggest',
    params: {
      sessionId: 'nes_1',
      uri: URI,
      version: options.version ?? 2,
      position: { line: 0, character: 0 },
      triggerKind: 'automatic',
      ...(options.context ? { context: options.context } : {}),
    },
  });
  const answerLine =
    options.answer === false ? undefined : t.result(2, { suggestions: options.suggestions ?? [] });
  t.client({ jsonrpc: '2.0', id: 3, method: 'nes/close', params: { sessionId: 'nes_1' } });
  t.result(3, {});
  return { t, suggestLine, answerLine };
}

const edit = (line: number, character: number) => ({
  kind: 'edit',
  suggestionId: 's1',
  uri: URI,
  edits: [{ range: { start: { line, character }, end: { line, character } }, newText: 'x' }],
});

describe('lintTranscript on next edit suggestions (unstable surface)', () => {
  it('passes a session whose suggestions are advertised kinds inside the document and whose context was asked for', () => {
    const { t } = nesTranscript({
      suggestions: [
        edit(2, 5),
        { kind: 'jump', suggestionId: 's2', uri: URI, position: { line: 1, character: 3 } },
      ],
      context: { diagnostics: [] },
    });
    const result = lintTranscript(t.text());
    expect(nesFindings(result)).toEqual([]);
    expect(NES_RULES.map((id) => statusOf(result, id))).toEqual(['pass', 'pass', 'pass', 'pass']);
  });

  it('pins a rename and a searchAndReplace the client did not advertise at their kind', () => {
    const { t, answerLine } = nesTranscript({
      suggestions: [
        edit(0, 0),
        { kind: 'rename', suggestionId: 's2', uri: URI, position: { line: 0, character: 6 }, newName: 'b' },
        { kind: 'searchAndReplace', suggestionId: 's3', uri: URI, search: 'a', replace: 'b' },
      ],
    });
    expect(nesFindings(lintTranscript(t.text()))).toEqual([
      ['nes.suggestion.kind-advertised', answerLine, '/result/suggestions/1/kind'],
      ['nes.suggestion.kind-advertised', answerLine, '/result/suggestions/2/kind'],
    ]);
  });

  it('pins context of a kind the agent did not ask for at its key', () => {
    const { t, suggestLine } = nesTranscript({ context: { diagnostics: [], openFiles: [] } });
    expect(nesFindings(lintTranscript(t.text()))).toEqual([
      ['nes.suggest.context-requested', suggestLine, '/params/context/openFiles'],
    ]);
  });

  it('pins a position below the last line and one past a line’s end, at the document’s version after the change', () => {
    const { t, answerLine } = nesTranscript({
      suggestions: [
        edit(3, 0),
        { kind: 'jump', suggestionId: 's2', uri: URI, position: { line: 2, character: 6 } },
      ],
    });
    expect(nesFindings(lintTranscript(t.text()))).toEqual([
      ['nes.suggestion.position-inside', answerLine, '/result/suggestions/0/edits/0/range/start/line'],
      ['nes.suggestion.position-inside', answerLine, '/result/suggestions/0/edits/0/range/end/line'],
      ['nes.suggestion.position-inside', answerLine, '/result/suggestions/1/position/character'],
    ]);
  });

  it('measures characters in the negotiated encoding: line 1 ends at 6 in utf-8 and at 2 in utf-32', () => {
    const inside = (encoding: 'utf-8' | 'utf-32', character: number) =>
      nesFindings(lintTranscript(nesTranscript({ encoding, suggestions: [edit(1, character)] }).t.text()))
        .length === 0;
    expect([inside('utf-8', 6), inside('utf-8', 7), inside('utf-32', 2), inside('utf-32', 3)]).toEqual([
      true,
      false,
      true,
      false,
    ]);
  });

  it('does not judge positions against a version the suggest did not name', () => {
    const { t } = nesTranscript({ version: 1, suggestions: [edit(40, 0)] });
    const result = lintTranscript(t.text());
    expect(statusOf(result, 'nes.suggestion.position-inside')).toBe('skip');
  });

  it('pins a nes/suggest left unanswered while a later request was answered', () => {
    const { t, suggestLine } = nesTranscript({ answer: false });
    expect(nesFindings(lintTranscript(t.text()))).toEqual([['nes.suggest.answered', suggestLine, undefined]]);
  });
});
