/**
 * Shape checks for what the text document model reads: each failure is a {@link TextDocumentError}
 * naming the JSON pointer of the offending value and what was expected there.
 * @internal
 */
import { TextDocumentError } from './text-document-error.js';
import type { TextDocumentChangeParams, TextDocumentOpenParams, TextPosition, TextRange } from './types.js';

const UINT32_MAX = 0xffff_ffff;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'number') return String(value);
  return typeof value === 'object' ? 'an object' : typeof value;
}

function invalid(pointer: string, expected: string, value: unknown): TextDocumentError {
  return new TextDocumentError('invalid_params', pointer, expected, describe(value));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function field(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Throws unless `value` is an object. @internal */
export function checkObject(value: unknown, pointer: string): Record<string, unknown> {
  if (!isRecord(value)) throw invalid(pointer, 'an object', value);
  return value;
}

/** Throws unless `value` is a string. @internal */
export function checkString(value: unknown, pointer: string): string {
  if (typeof value !== 'string') throw invalid(pointer, 'a string', value);
  return value;
}

/** Throws unless `value` is a safe integer (a document version, upstream's int64). @internal */
export function checkVersion(value: unknown, pointer: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value))
    throw invalid(pointer, 'an integer version', value);
  return value;
}

function checkUint32(value: unknown, pointer: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > UINT32_MAX) {
    throw invalid(pointer, 'a non-negative integer (uint32)', value);
  }
  return value;
}

/** Throws unless `value` is a position: `{ line, character }`, both uint32. @internal */
export function checkPosition(value: unknown, pointer: string): TextPosition {
  const record = checkObject(value, pointer);
  return {
    line: checkUint32(field(record, 'line'), `${pointer}/line`),
    character: checkUint32(field(record, 'character'), `${pointer}/character`),
  };
}

/** Throws unless `value` is a range whose end is not before its start. @internal */
export function checkRange(value: unknown, pointer: string): TextRange {
  const record = checkObject(value, pointer);
  const start = checkPosition(field(record, 'start'), `${pointer}/start`);
  const end = checkPosition(field(record, 'end'), `${pointer}/end`);
  if (end.line < start.line || (end.line === start.line && end.character < start.character)) {
    throw new TextDocumentError(
      'invalid_params',
      `${pointer}/end`,
      `a position not before the range's start (${start.line}:${start.character})`,
      `${end.line}:${end.character}`,
    );
  }
  return { start, end };
}

/** The checked fields of a `document/didOpen`. @internal */
export function checkOpenParams(params: unknown): TextDocumentOpenParams {
  const record = checkObject(params, '');
  return {
    uri: checkString(field(record, 'uri'), '/uri'),
    languageId: checkString(field(record, 'languageId'), '/languageId'),
    version: checkVersion(field(record, 'version'), '/version'),
    text: checkString(field(record, 'text'), '/text'),
  };
}

/** The checked fields of a `document/didChange`, every change's shape included. @internal */
export function checkChangeParams(params: unknown): TextDocumentChangeParams {
  const record = checkObject(params, '');
  const uri = field(record, 'uri');
  if (uri !== undefined) checkString(uri, '/uri');
  const version = checkVersion(field(record, 'version'), '/version');
  const changes = field(record, 'contentChanges');
  if (!Array.isArray(changes)) throw invalid('/contentChanges', 'an array of content changes', changes);
  const contentChanges = changes.map((change: unknown, i) => {
    const pointer = `/contentChanges/${i}`;
    const item = checkObject(change, pointer);
    const text = checkString(field(item, 'text'), `${pointer}/text`);
    const range = field(item, 'range');
    if (range === undefined || range === null) return { text };
    return { text, range: checkRange(range, `${pointer}/range`) };
  });
  return uri === undefined ? { version, contentChanges } : { uri: uri as string, version, contentChanges };
}
