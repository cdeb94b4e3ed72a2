/**
 * Recording notes: lines a transcript recorded by the live kit (`acp-kit conformance --record`)
 * carries beside its messages, saying what the messages alone cannot — which scenario it was, why
 * the scenario stopped, how the agent process ended, and which requests were never answered. Each
 * is one ndjson line `{"note": <kind>, …}`; a reader that does not know a kind keeps it and ignores it.
 */

/** The first line of a kit recording: who recorded it, for which scenario. */
export interface RecordingHeader {
  note: 'recording';
  /** Always `acp-kit conformance` for the kit's recordings. */
  source: string;
  /** The scenario's name (see `SCENARIO_NAMES`). */
  scenario: string;
}

/** The scenario stopped early; `agentFault` when the agent is to blame (it exited, or did not answer). */
export interface AbortNote {
  note: 'abort';
  message: string;
  agentFault: boolean;
}

/** The agent process ended before the kit closed it. */
export interface ExitNote {
  note: 'exit';
  code: number | null;
  signal: string | null;
  /** The last lines of its stderr, when it wrote any. */
  stderr?: string;
}

/** A request the kit sent that the agent never answered. */
export interface UnansweredNote {
  note: 'unanswered';
  id: string | number;
  method: string;
  /** The 1-based line of the request in the recording. */
  requestLine: number;
}

/** Every note kind this version of the kit writes and reads. */
export type RecordingNote = RecordingHeader | AbortNote | ExitNote | UnansweredNote;

/** The name the kit records under, in a recording's header. */
export const KIT_SOURCE = 'acp-kit conformance';

/** Serializes a note as one transcript line, newline included. */
export function formatNote(note: RecordingNote): string {
  return `${JSON.stringify(note)}\n`;
}

/** The note a parsed line holds, if it is a note this version knows (otherwise undefined). */
export function readNote(record: Record<string, unknown>): RecordingNote | undefined {
  switch (record.note) {
    case 'recording':
      return typeof record.source === 'string' && typeof record.scenario === 'string'
        ? { note: 'recording', source: record.source, scenario: record.scenario }
        : undefined;
    case 'abort':
      return typeof record.message === 'string'
        ? { note: 'abort', message: record.message, agentFault: record.agentFault === true }
        : undefined;
    case 'exit':
      return {
        note: 'exit',
        code: typeof record.code === 'number' ? record.code : null,
        signal: typeof record.signal === 'string' ? record.signal : null,
        ...(typeof record.stderr === 'string' ? { stderr: record.stderr } : {}),
      };
    case 'unanswered':
      return (typeof record.id === 'string' || typeof record.id === 'number') &&
        typeof record.method === 'string'
        ? {
            note: 'unanswered',
            id: record.id,
            method: record.method,
            requestLine: typeof record.requestLine === 'number' ? record.requestLine : 0,
          }
        : undefined;
    default:
      return undefined;
  }
}
