import { type Finding, lintTranscript, type LintResult } from '@acp-kit/conformance/lint';
import * as v2 from '@acp-kit/schema';
import { v1Validation as v1 } from '@acp-kit/v1-compat/browser';

/** Which way a frame travelled, in the transcript format's words. */
export type Direction = 'client->agent' | 'agent->client';

/** What a frame is on the wire. */
export type Kind = 'request' | 'notification' | 'response' | 'error' | 'garbage';

/** One schema issue of a message, with its pointer from the message's root. */
export interface Issue {
  pointer: string;
  message: string;
}

/** One frame of the traffic, as shown in the Traffic tab. */
export interface TrafficRow {
  /** Position in the traffic, from 0. */
  readonly index: number;
  readonly dir: Direction;
  /** Milliseconds since the inspector started. */
  readonly t: number;
  readonly text: string;
  readonly msg: unknown;
  readonly kind: Kind;
  /** The method, for requests and notifications, and for responses the request's. */
  readonly method: string;
  readonly sessionId: string;
  /** `valid`, `invalid` (see `issues`), `unchecked` (no schema for the method), or `garbage`. */
  readonly validity: 'valid' | 'invalid' | 'unchecked' | 'garbage';
  readonly issues: readonly Issue[];
  /** The schema version it was checked against. */
  readonly version: 1 | 2;
  /** 1-based line of this message in the exported transcript (garbage frames are not exported). */
  readonly line?: number;
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

interface Validators {
  validateParams(method: string, params: unknown): { ok: boolean; issues?: readonly Issue[] } | undefined;
  validateResult(method: string, result: unknown): { ok: boolean; issues?: readonly Issue[] } | undefined;
}

const VALIDATORS: Record<1 | 2, Validators> = {
  1: v1 as unknown as Validators,
  2: v2 as unknown as Validators,
};

function issuesOf(
  result: { ok: boolean; issues?: readonly Issue[] } | undefined,
  base: string,
): Issue[] | undefined {
  if (result === undefined) return undefined;
  if (result.ok) return [];
  return (result.issues ?? []).map((issue) => ({
    pointer: `${base}${issue.pointer}`,
    message: issue.message,
  }));
}

/** A row's line in the project's transcript format; the message is its raw text, not parsed and written again. */
function lineOf(row: TrafficRow): string {
  // A frame of a remote transport may be pretty-printed over several lines: that one is written again.
  const msg = /[\r\n]/.test(row.text) ? JSON.stringify(row.msg) : row.text.trim();
  return `{"dir":${JSON.stringify(row.dir)},"t":${JSON.stringify(row.t)},"msg":${msg}}\n`;
}

/**
 * Every frame both ways, classified and validated against the schema of the version in force
 * (the version the page asked for until the agent's initialize answer says which one it speaks).
 */
export class Traffic {
  readonly rows: TrafficRow[] = [];
  /** Requests awaiting an answer, by `<sender>:<id>`, with their method and session. */
  readonly #open = new Map<string, { method: string; sessionId: string }>();
  #version: 1 | 2 = 2;
  #lines = 0;
  #lint:
    | { result: LintResult; rows: number; at: number; took: number; byLine: Map<number, Finding[]> }
    | undefined;
  /** The lint worker, when the page can run one (see lint-worker.ts); the lint runs inline otherwise. */
  readonly #worker: Worker | undefined;
  /** Transcript lines (one per JSON-RPC row) handed to the worker so far. */
  #posted = 0;
  /** Rows the lint in flight covers, or undefined when none is. */
  #inFlight: number | undefined;
  readonly #onLinted: () => void;
  /** An imported file's text: linted as it is (see {@link useSource}). */
  #source: string | undefined;

  /** `onLinted` is called when a lint run in the worker finished (the page renders again). */
  constructor(onLinted: () => void = () => {}) {
    this.#onLinted = onLinted;
    let worker: Worker | undefined;
    try {
      worker = typeof Worker === 'function' ? new Worker('/lint-worker.js', { type: 'module' }) : undefined;
    } catch {
      worker = undefined;
    }
    this.#worker = worker;
    worker?.addEventListener('message', (event: MessageEvent<{ lines: number; result: LintResult }>) => {
      const rows = this.#inFlight ?? this.rows.length;
      this.#inFlight = undefined;
      this.#setLint(event.data.result, rows, 0);
      this.#onLinted();
    });
  }

  #setLint(result: LintResult, rows: number, took: number): void {
    const byLine = new Map<number, Finding[]>();
    for (const finding of result.findings) {
      if (finding.line === undefined) continue;
      const list = byLine.get(finding.line) ?? [];
      list.push(finding);
      byLine.set(finding.line, list);
    }
    this.#lint = { result, rows, at: performance.now(), took, byLine };
  }

  /** The version frames are validated against now. */
  get version(): 1 | 2 {
    return this.#version;
  }

  /** Sets the version for the frames that follow (the one chosen before initialize). */
  set version(version: 1 | 2) {
    this.#version = version;
  }

  /**
   * Adds one frame; returns its row. An imported file's rows give their `line` in the file (the
   * lint's findings of that file point there), and `notEntry` for a line that is not a transcript
   * entry (shown as garbage where it stood).
   */
  add(dir: Direction, t: number, text: string, from?: { line: number; notEntry?: boolean }): TrafficRow {
    let msg: unknown;
    let parsed = true;
    try {
      msg = JSON.parse(text);
    } catch {
      parsed = false;
    }
    const m = from?.notEntry ? undefined : record(msg);
    const index = this.rows.length;
    if (!parsed || m === undefined) {
      const row: TrafficRow = {
        index,
        dir,
        t,
        text,
        msg,
        kind: 'garbage',
        method: '',
        sessionId: '',
        validity: 'garbage',
        issues: [
          {
            pointer: '',
            message: !parsed
              ? 'not JSON'
              : from?.notEntry
                ? 'not a transcript line {"dir", "t"?, "msg"}'
                : 'not a JSON-RPC object',
          },
        ],
        version: this.#version,
        ...(from === undefined ? {} : { line: from.line }),
      };
      this.rows.push(row);
      return row;
    }
    const sender = dir === 'client->agent' ? 'client' : 'agent';
    const validators = VALIDATORS[this.#version];
    let kind: Kind;
    let method = '';
    let issues: Issue[] | undefined;
    const params = record(m.params);
    let sessionId = typeof params?.sessionId === 'string' ? params.sessionId : '';
    if (typeof m.method === 'string') {
      kind = 'id' in m ? 'request' : 'notification';
      method = m.method;
      if (kind === 'request') this.#open.set(`${sender}:${JSON.stringify(m.id)}`, { method, sessionId });
      issues = issuesOf(validators.validateParams(method, m.params), '/params');
    } else {
      kind = 'error' in m ? 'error' : 'response';
      const requester = sender === 'agent' ? 'client' : 'agent';
      const key = `${requester}:${JSON.stringify(m.id)}`;
      const request = this.#open.get(key);
      method = request?.method ?? '';
      // A response belongs to its request's session (session/new's, to the session it created).
      const created = record(m.result)?.sessionId;
      sessionId = request?.sessionId || (typeof created === 'string' ? created : '');
      this.#open.delete(key);
      if (kind === 'response' && method !== '') {
        issues = issuesOf(validators.validateResult(method, m.result), '/result');
        if (method === 'initialize') {
          const version = record(m.result)?.protocolVersion;
          if (version === 1 || version === 2) this.#version = version;
        }
      } else if (kind === 'error') {
        const error = record(m.error);
        issues =
          typeof error?.code === 'number' && typeof error.message === 'string'
            ? []
            : [{ pointer: '/error', message: 'a JSON-RPC error needs a numeric code and a string message' }];
      }
    }
    if (m.jsonrpc !== '2.0') issues = [...(issues ?? []), { pointer: '/jsonrpc', message: 'must be "2.0"' }];
    const row: TrafficRow = {
      index,
      dir,
      t,
      text,
      msg,
      kind,
      method,
      sessionId,
      validity: issues === undefined ? 'unchecked' : issues.length === 0 ? 'valid' : 'invalid',
      issues: issues ?? [],
      version: this.#version,
      line: from?.line ?? ++this.#lines,
    };
    this.rows.push(row);
    return row;
  }

  /** The transcript in the project's ndjson format: one `{"dir","t","msg"}` line per JSON-RPC message. */
  transcript(): string {
    return this.rows
      .filter((row) => row.line !== undefined && row.kind !== 'garbage')
      .map((row) => lineOf(row))
      .join('');
  }

  /**
   * The conformance kit's lint over the transcript so far. Recomputed when frames were added, but
   * during a flood at most every few times its own duration (so linting 100 000 frames never takes
   * most of the page's time): until then the last result is returned and {@link lintStale} is true.
   */
  lint(): LintResult {
    if (this.#source !== undefined) return this.#lintSource(this.#source);
    if (this.#worker !== undefined) return this.#lintInWorker(this.#worker);
    const now = performance.now();
    if (
      this.#lint === undefined ||
      (this.#lint.rows !== this.rows.length && now - this.#lint.at >= Math.max(200, 4 * this.#lint.took))
    )
      this.#setLint(lintTranscript(this.transcript()), this.rows.length, performance.now() - now);
    return this.#lint!.result;
  }

  /**
   * Lints an imported file as it is, not the rows read from it: a file that is not a transcript gets
   * the verdict `acp-kit lint` gives it (`transcript.format`), with its findings on the file's lines.
   */
  useSource(text: string): void {
    this.#source = text;
    this.#lint = undefined;
  }

  #lintSource(source: string): LintResult {
    if (this.#lint !== undefined || this.#inFlight !== undefined)
      return this.#lint?.result ?? lintTranscript('');
    if (this.#worker === undefined) {
      this.#setLint(lintTranscript(source), this.rows.length, 0);
      return this.#lint!.result;
    }
    // Linted once, in the worker (a large file must not stall the page); stale until it answers.
    this.#setLint(lintTranscript(''), -1, 0);
    this.#inFlight = this.rows.length;
    this.#worker.postMessage({ lines: [source], lint: 1 });
    return this.#lint!.result;
  }

  /** Hands the new lines to the worker and asks for a lint when none is running; the last result meanwhile. */
  #lintInWorker(worker: Worker): LintResult {
    if (this.#lint === undefined) this.#setLint(lintTranscript(''), 0, 0);
    if (this.#inFlight === undefined && this.#lint!.rows !== this.rows.length) {
      const lines: string[] = [];
      for (const row of this.rows.slice(this.#posted)) if (row.line !== undefined) lines.push(lineOf(row));
      this.#posted = this.rows.length;
      this.#inFlight = this.rows.length;
      worker.postMessage({ lines, lint: this.#posted });
    }
    return this.#lint!.result;
  }

  /** Stops the lint worker (this traffic is no longer shown). */
  dispose(): void {
    this.#worker?.terminate();
  }

  /** Whether frames arrived since the last lint (a later render should lint again). */
  lintStale(): boolean {
    return this.#lint !== undefined && this.#lint.rows !== this.rows.length;
  }

  /** The lint's findings of one row. */
  findingsOf(row: TrafficRow): readonly Finding[] {
    if (row.line === undefined) return [];
    this.lint();
    return this.#lint?.byLine.get(row.line) ?? [];
  }
}
