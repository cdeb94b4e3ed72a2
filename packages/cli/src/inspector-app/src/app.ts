import type { InspectorApi } from './api.js';
import type { Peer } from './peer.js';
import type { SecondClient } from './second-client.js';
import type { InspectorState } from './state.js';
import type { TrafficRow } from './traffic.js';

/**
 * The page as its wiring modules see it: the one state object, the inspector's API and the page's
 * JSON-RPC peer, and the page's own helpers (say a line, run an action and report its failure, ask
 * for a render). Built once by startInspector.
 */
export interface App {
  readonly state: InspectorState;
  readonly api: InspectorApi;
  readonly peer: Peer;
  say(text: string, isError?: boolean): void;
  act(what: string, run: () => Promise<unknown>): Promise<void>;
  schedule(): void;
  /** The working directory for new and resumed sessions. */
  cwd(): string;
  secondClient(conn: number): SecondClient;
  /** What the page learns from an answer of the agent (agent info, a session's options…). */
  noteResponse(row: TrafficRow): void;
  /** Folds one message into the conversation store. */
  foldIntoStore(dir: 'client->agent' | 'agent->client', msg: Record<string, unknown> | undefined): void;
}
