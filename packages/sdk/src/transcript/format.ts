/**
 * The acp-kit transcript format: ndjson, one JSON-RPC message per line, each line
 * `{"dir":"client->agent"|"agent->client","t":<ms since recording started, optional>,"msg":<message>}`.
 * Which side recorded it does not matter: `dir` always names the direction on the wire.
 */

/** Which way a recorded message travelled. */
export type TranscriptDirection = 'client->agent' | 'agent->client';

/** One line of a transcript. */
export interface TranscriptLine {
  /** Which way the message travelled. */
  dir: TranscriptDirection;
  /** Milliseconds since the recording started, when the recorder keeps time. */
  t?: number;
  /** The JSON-RPC message exactly as it was parsed or sent. */
  msg: unknown;
}

/** Which end of the connection a recorder sits on; decides how `in`/`out` map to directions. */
export type TranscriptSide = 'agent' | 'client';

/** Maps a connection-local direction to the wire direction, given which side the connection is. */
export function wireDirection(side: TranscriptSide, local: 'in' | 'out'): TranscriptDirection {
  const fromClient = (side === 'client') === (local === 'out');
  return fromClient ? 'client->agent' : 'agent->client';
}

/** Serializes one transcript line, newline included. */
export function formatTranscriptLine(line: TranscriptLine): string {
  const ordered: TranscriptLine =
    line.t === undefined ? { dir: line.dir, msg: line.msg } : { dir: line.dir, t: line.t, msg: line.msg };
  return `${JSON.stringify(ordered)}\n`;
}
