import type { TranscriptDirection } from '@acp-kit/sdk';
import { type RecordingNote, readNote } from './notes.js';

/** One message of a parsed transcript, with where it came from. */
export interface TranscriptEntry {
  /** Position among the transcript's messages, from 0. */
  index: number;
  /** 1-based line number in the transcript text (equals index + 1 for recorded transcripts). */
  line: number;
  /** Which way the message travelled. */
  dir: TranscriptDirection;
  /** Milliseconds since the recording started, when recorded. */
  t?: number;
  /** The JSON-RPC message. */
  msg: unknown;
}

/** A line that is not a transcript line. */
export interface TranscriptLineProblem {
  /** 1-based line number. */
  line: number;
  /** What is wrong with it. */
  message: string;
}

/** A recording note of a transcript, with its line. */
export interface NoteLine {
  /** 1-based line number. */
  line: number;
  note: RecordingNote;
}

/** A transcript split into messages, plus the lines that could not be read. */
export interface ParsedTranscript {
  /** The readable lines, in order. */
  entries: TranscriptEntry[];
  /** The recording notes (`{"note": …}` lines) of a kit recording, in order; unknown kinds are left out. */
  notes: NoteLine[];
  /** Lines that were not `{"dir", "t"?, "msg"}` objects. Blank lines are skipped silently. */
  problems: TranscriptLineProblem[];
}

const DIRECTIONS: readonly string[] = ['client->agent', 'agent->client'];

/**
 * Parses ndjson transcript text; never throws, every unreadable line becomes a problem. Recording
 * notes (`{"note": …}` lines, see `notes.ts`) are collected apart from the messages.
 */
export function parseTranscript(text: string): ParsedTranscript {
  const entries: TranscriptEntry[] = [];
  const problems: TranscriptLineProblem[] = [];
  const notes: NoteLine[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const line = i + 1;
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      problems.push({ line, message: `not JSON: ${error instanceof Error ? error.message : String(error)}` });
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      problems.push({ line, message: 'expected an object {"dir", "t"?, "msg"}' });
      continue;
    }
    const record = value as Record<string, unknown>;
    if (typeof record.note === 'string' && !('dir' in record)) {
      const note = readNote(record);
      if (note) notes.push({ line, note });
      continue;
    }
    if (typeof record.dir !== 'string' || !DIRECTIONS.includes(record.dir)) {
      problems.push({
        line,
        message: `"dir" must be "client->agent" or "agent->client", got ${JSON.stringify(record.dir)}`,
      });
      continue;
    }
    if (!('msg' in record)) {
      problems.push({ line, message: 'missing "msg" (the JSON-RPC message)' });
      continue;
    }
    if (record.t !== undefined && (typeof record.t !== 'number' || !Number.isFinite(record.t))) {
      problems.push({
        line,
        message: `"t" must be a number of milliseconds, got ${JSON.stringify(record.t)}`,
      });
      continue;
    }
    const entry: TranscriptEntry = {
      index: entries.length,
      line,
      dir: record.dir as TranscriptDirection,
      msg: record.msg,
    };
    if (typeof record.t === 'number') entry.t = record.t;
    entries.push(entry);
  }
  return { entries, problems, notes };
}

/** Turns recorded lines (from the SDK recorder) into entries, numbering lines as the file would. */
export function entriesFromLines(
  lines: readonly { dir: TranscriptDirection; t?: number; msg: unknown }[],
): TranscriptEntry[] {
  return lines.map((line, index) => ({ ...line, index, line: index + 1 }));
}
