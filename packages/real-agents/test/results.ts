/**
 * The results file the suite writes: one row per agent, path, transport, client and check, with
 * its outcome and the date. Each test file writes its rows to `results/runs/` when it ends; the
 * global teardown (`merge-results.ts`) merges them into `results/agents.json` on a full matrix
 * run (`npm run agents:matrix`), which the docs page "Agents tested with acp-kit" is built from.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AgentSpec, RecipeStep } from './agents.js';
import type { ClientId, PathId } from './peers.js';

export const RESULTS_DIR = fileURLToPath(new URL('../results/', import.meta.url));
export const RUNS_DIR = fileURLToPath(new URL('../results/runs/', import.meta.url));

/** The transport a path's client speaks. */
export type Transport = 'stdio' | 'streamable-http' | 'websocket';

export const TRANSPORT: Record<PathId, Transport> = {
  bridge: 'stdio',
  'serve-http': 'streamable-http',
  'serve-websocket': 'websocket',
};

/** One checked behaviour of one agent on one path with one client. */
export interface ResultRow {
  agent: string;
  npm: string;
  version: string;
  /** `acp-kit bridge --serve v2 --history …` or `acp-kit serve --v1 --listen …`, or `acp-kit conformance`. */
  path: 'bridge' | 'serve' | 'conformance';
  transport: Transport;
  client: ClientId | 'acp-kit conformance';
  /** What was checked (a stable ID, see CHECKS). */
  check: string;
  result: 'pass' | 'fail';
  /** The failure's first line for a failed check; what was tolerated for a passed one. */
  detail?: string;
  /** A setup other than the agent's default (an unknown model slug, a replay held by the divergent rules). */
  variant?: string;
  /** When it ran (ISO 8601). */
  date: string;
}

/** The whole results file. */
export interface ResultsFile {
  /** What produced it. */
  generatedBy: string;
  date: string;
  node: string;
  platform: string;
  /** What each check ID in the rows means. */
  checks: Record<string, string>;
  /** The agents that ran, with their offline recipes. */
  agents: { id: string; npm: string; version: string; api: string; recipe: RecipeStep[] }[];
  rows: ResultRow[];
}

/** What each check ID means, for the docs page. */
export const CHECKS: Record<string, string> = {
  'turn.allowed':
    'a prompt: the receipt `messageId` and the `user_message` under it; a shell command that asks permission, answered allow; the tool call; the command really ran (its file exists); the agent’s text; `state_update` running → requires_action → idle `end_turn`',
  'turn.rejected':
    'the same command answered reject: permission asked, the command did not run, the turn ends idle',
  'turn.file-edit': 'a file edit: a tool call with a diff, and the file holds the new text',
  'turn.cancel': 'a long streamed answer cancelled mid-turn: the turn ends idle `cancelled`',
  'resume.same-connection':
    '`session/resume` with replay on the same connection: every message once, under its live ID, with its live content',
  'resume.fresh-connection': 'the same on a fresh connection',
  'resume.after-restart': 'the same after the bridge or gateway restarted',
  conformance:
    '`acp-kit conformance` over `acp-kit bridge --serve v2 -- <agent>`: every rule passes or is skipped',
  'conformance.tolerating':
    'the same, with the failures named in the row tolerated (each explained: an agent defect, or a fix not merged yet)',
  'turn.tool-call-before-permission':
    'a tool call the agent first names in its permission request is a tool call of the conversation (title, kind) before the question reaches the client',
  'turn.client-fs-terminal':
    'behind the bridge, the agent is offered the client’s file system and terminal: it edits through `fs/write_text_file` and runs through `terminal/*`, and the v2 client sees a diff and a display terminal',
  'processes.none-left':
    'the client goes away and the bridge or gateway is stopped (end of input, SIGTERM): no bridge, gateway or agent process remains',
};

/** Collects rows for one test file and writes them to `results/runs/<name>.json`. */
export class ResultLog {
  readonly rows: ResultRow[] = [];
  readonly #name: string;

  constructor(name: string) {
    this.#name = name;
  }

  /** Runs `body`, recording its outcome under `check`; rethrows a failure. */
  async record(
    row: Omit<ResultRow, 'agent' | 'result' | 'date' | 'npm' | 'version'> & { spec: AgentSpec },
    body: () => Promise<void>,
  ): Promise<void> {
    const { spec, ...rest } = row;
    const base = { ...rest, agent: spec.id, npm: spec.npm, version: spec.version };
    try {
      await body();
      this.rows.push({ ...base, result: 'pass', date: new Date().toISOString() });
    } catch (error) {
      const detail = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 300);
      this.rows.push({ ...base, result: 'fail', detail, date: new Date().toISOString() });
      throw error;
    }
  }

  write(): void {
    mkdirSync(RUNS_DIR, { recursive: true });
    writeFileSync(`${RUNS_DIR}${this.#name}.json`, `${JSON.stringify(this.rows, null, 2)}\n`);
  }
}
