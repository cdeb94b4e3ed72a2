import { asRecord } from '../analysis/envelope.js';
import type { TranscriptEntry } from '../transcript/parse.js';
import {
  type AbortNote,
  type ExitNote,
  formatNote,
  KIT_SOURCE,
  type UnansweredNote,
} from '../transcript/notes.js';

/** How one scenario ended, as far as its recording needs to say. */
export interface ScenarioEnding {
  scenario: string;
  /** Why the scenario stopped early, when it did. */
  abort?: { message: string; agentFault: boolean };
  /** How the agent process ended, when it ended before the kit closed it. */
  exit?: { code: number | null; signal: string | null };
  /** The end of the agent's stderr. */
  stderr: string;
}

/** How many of stderr's last lines an exit note keeps. */
const STDERR_LINES = 20;

/** Requests the kit sent (client → agent) that no agent message answered, in order. */
export function unansweredRequests(entries: readonly TranscriptEntry[]): UnansweredNote[] {
  const answered = new Set<string>();
  for (const entry of entries) {
    const msg = asRecord(entry.msg);
    if (entry.dir === 'agent->client' && msg && !('method' in msg) && 'id' in msg)
      answered.add(JSON.stringify(msg.id));
  }
  const open: UnansweredNote[] = [];
  for (const entry of entries) {
    const msg = asRecord(entry.msg);
    if (entry.dir !== 'client->agent' || !msg || typeof msg.method !== 'string') continue;
    const id = msg.id;
    if ((typeof id !== 'string' && typeof id !== 'number') || answered.has(JSON.stringify(id))) continue;
    open.push({ note: 'unanswered', id, method: msg.method, requestLine: entry.line });
  }
  return open;
}

/**
 * The recording of a scenario (what `--record` writes): its messages as recorded, then the notes
 * a lint needs to reach the live run's verdicts — the scenario, why it stopped, the agent's own
 * exit with the end of its stderr, the requests it never answered. Notes come after the messages,
 * so every message keeps the line number the live report gives it.
 */
export function recordingText(
  transcript: string,
  entries: readonly TranscriptEntry[],
  ending: ScenarioEnding,
): string {
  const notes = [formatNote({ note: 'recording', source: KIT_SOURCE, scenario: ending.scenario })];
  if (ending.abort) {
    const abort: AbortNote = { note: 'abort', ...ending.abort };
    notes.push(formatNote(abort));
  }
  if (ending.exit) {
    const stderr = ending.stderr.trimEnd().split('\n').slice(-STDERR_LINES).join('\n');
    const exit: ExitNote = { note: 'exit', ...ending.exit, ...(stderr ? { stderr } : {}) };
    notes.push(formatNote(exit));
  }
  for (const note of unansweredRequests(entries)) notes.push(formatNote(note));
  return transcript + notes.join('');
}
