import type { RpcId } from './messages.js';

/** What {@link scanEnvelope} could read of a JSON-RPC envelope's top-level members. */
export interface EnvelopeScan {
  /** The top-level `id`, when one was read whole and is a string or a number. */
  id: RpcId | null;
  /** The exact text of that `id` as it stood in the input (digits beyond 2^53 included). */
  idText: string | null;
  /** Names of the top-level members seen before the text ended or stopped being JSON. */
  members: string[];
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Reads the top-level members of a JSON object from text that may be cut short (the kept start of
 * an oversized line) without parsing the values it does not need: nested values are skipped by
 * bracket counting. Stops quietly at the end of the text or at anything that is not JSON, and
 * returns what it saw up to there. A number `id` counts only once something follows it, since a
 * cut could have shortened it.
 */
export function scanEnvelope(text: string): EnvelopeScan {
  const out: EnvelopeScan = { id: null, idText: null, members: [] };
  let at = skipWs(text, 0);
  if (text.charCodeAt(at) !== 0x7b /* { */) return out;
  at += 1;
  for (;;) {
    at = skipWs(text, at);
    if (text.charCodeAt(at) !== 0x22 /* " */) return out;
    const keyEnd = stringEnd(text, at);
    if (keyEnd < 0) return out;
    const key = parseString(text.slice(at, keyEnd));
    if (key === undefined) return out;
    out.members.push(key);
    at = skipWs(text, keyEnd);
    if (text.charCodeAt(at) !== 0x3a /* : */) return out;
    at = skipWs(text, at + 1);
    const valueEnd = skipValue(text, at);
    if (valueEnd < 0) return out;
    if (key === 'id') readId(text, at, valueEnd, out);
    at = skipWs(text, valueEnd);
    if (text.charCodeAt(at) !== 0x2c /* , */) return out;
    at += 1;
  }
}

function readId(text: string, start: number, end: number, out: EnvelopeScan): void {
  const raw = text.slice(start, end);
  const first = text.charCodeAt(start);
  if (first === 0x22) {
    const value = parseString(raw);
    if (value !== undefined) {
      out.id = value;
      out.idText = raw;
    }
    return;
  }
  // Only a number that something follows is known to be whole.
  if (end >= text.length) return;
  NUMBER.lastIndex = start;
  const match = NUMBER.exec(text);
  if (match === null || match[0].length !== raw.length) return;
  const value = Number(raw);
  if (!Number.isFinite(value)) return;
  out.id = value;
  out.idText = raw;
}

function skipWs(text: string, at: number): number {
  while (at < text.length && WS.has(text.charCodeAt(at))) at += 1;
  return at;
}

/** Index just past the string starting at `at` (which is a quote), or -1 if the text ends inside it. */
function stringEnd(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x5c /* \ */) i += 1;
    else if (c === 0x22) return i + 1;
  }
  return -1;
}

function parseString(raw: string): string | undefined {
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Index just past the value starting at `at`, or -1 if the text ends inside it or it is not JSON. */
function skipValue(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c === 0x22) return stringEnd(text, at);
  if (c === 0x7b || c === 0x5b /* [ */) {
    let depth = 0;
    for (let i = at; i < text.length; i += 1) {
      const d = text.charCodeAt(i);
      if (d === 0x22) {
        i = stringEnd(text, i);
        if (i < 0) return -1;
        i -= 1;
      } else if (d === 0x7b || d === 0x5b) depth += 1;
      else if (d === 0x7d /* } */ || d === 0x5d /* ] */) {
        depth -= 1;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }
  // A number or a literal: runs to the next delimiter.
  let i = at;
  while (i < text.length) {
    const d = text.charCodeAt(i);
    if (d === 0x2c || d === 0x7d || d === 0x5d || WS.has(d)) break;
    i += 1;
  }
  return i === at ? -1 : i;
}

/**
 * The text of each element of a JSON array, in order, for text already known to parse as an array
 * (a batch): lets each entry be read like a single message, big integer IDs included. Returns
 * `undefined` for anything the scanner cannot split.
 */
export function splitArray(text: string): string[] | undefined {
  let at = skipWs(text, 0);
  if (text.charCodeAt(at) !== 0x5b /* [ */) return undefined;
  const out: string[] = [];
  at = skipWs(text, at + 1);
  if (text.charCodeAt(at) === 0x5d /* ] */) return out;
  for (;;) {
    const end = skipValue(text, at);
    if (end < 0) return undefined;
    out.push(text.slice(at, end));
    at = skipWs(text, end);
    const c = text.charCodeAt(at);
    if (c === 0x5d) return out;
    if (c !== 0x2c /* , */) return undefined;
    at = skipWs(text, at + 1);
  }
}
