import { randomUUID } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { DiffAddChange, DiffModifyChange, SessionUpdate } from '@acp-kit/schema';
import { type AgentSession, type Connection, ErrorCodes, RpcError } from '@acp-kit/sdk';
import type {
  AgentNotificationMap,
  AgentRequestMap,
  ClientNotificationMap,
  ClientRequestMap,
} from '../generated/v1/methods.js';
import type * as V1 from '../generated/v1/types.js';
import { BridgeTerminal } from './bridge-terminal.js';
import type { ConfinedPath, SessionPaths } from './session-paths.js';

/** Largest text file the bridge reads or writes for a v1 agent, in bytes (4 MiB). */
export const MAX_TEXT_FILE_BYTES = 4 * 1024 * 1024;
/**
 * Most output bytes a terminal keeps for `terminal/output` (1 MiB): the default, and the most an
 * agent's `outputByteLimit` can ask for.
 */
export const MAX_TERMINAL_OUTPUT_BYTES = 1024 * 1024;
/** Terminals one session may hold at once (created and not released yet). */
export const MAX_TERMINALS_PER_SESSION = 16;
/**
 * Most bytes of old and new text a write's diff carries; past it the diff names the file without
 * its texts (a v2 message must stay under the 8 MiB frame limit).
 */
const MAX_DIFF_TEXT_BYTES = 4 * 1024 * 1024;

/** A file the agent asked to read, as {@link V1ClientServicesOptions.openBuffer} sees it. */
export interface OpenFileQuery {
  readonly sessionId: string;
  /** The path as the agent gave it. */
  readonly path: string;
  /** The real path it names (symlinks resolved), already checked against the session's directories. */
  readonly realPath: string;
}

/** A path outside the session's directories, as {@link V1ClientServicesOptions.allowPath} sees it. */
export interface OutsidePathQuery {
  readonly sessionId: string;
  /** The path as the agent gave it. */
  readonly path: string;
  /** The real path it names (symlinks resolved). */
  readonly realPath: string;
  /** Which method asked: `fs/read_text_file`, `fs/write_text_file` or `terminal/create` (its cwd). */
  readonly method: 'fs/read_text_file' | 'fs/write_text_file' | 'terminal/create';
  /** The session's directories (cwd first) the path is not inside. */
  readonly roots: readonly string[];
}

/**
 * Which v1 client services are offered to a v1 agent and how: the file system
 * (`fs/read_text_file`, `fs/write_text_file`) and terminals (`terminal/create`, `output`,
 * `wait_for_exit`, `kill`, `release`). Each one offered is advertised in the v1 `initialize`'s
 * `clientCapabilities`; one not offered is not advertised and is answered -32601.
 */
export interface V1ClientServicesOptions {
  /** Serve `fs/read_text_file`. Default `true`. */
  readTextFile?: boolean;
  /** Serve `fs/write_text_file`. Default `true`. */
  writeTextFile?: boolean;
  /** Serve `terminal/*`, each terminal a child process on this machine. Default `true`. */
  terminal?: boolean;
  /**
   * The app's own text for a file the agent reads, such as an editor's unsaved buffer: return it,
   * or `undefined` to read the file from disk. Asked after the path was checked; `line` and
   * `limit` apply to the text returned. A file that is not on disk yet can be served this way.
   */
  openBuffer?(file: OpenFileQuery): string | undefined | Promise<string | undefined>;
  /**
   * Decides about an absolute path outside the session's cwd and additionalDirectories: `true`
   * serves it. Default: every such path is refused -32602, naming the path and the allowed roots.
   * Relative paths and paths with a `..` segment are refused whatever this says.
   */
  allowPath?(query: OutsidePathQuery): boolean | Promise<boolean>;
  /** Terminals one session may hold at once. Default {@link MAX_TERMINALS_PER_SESSION}. */
  maxTerminalsPerSession?: number;
  /**
   * The most output bytes a terminal keeps for `terminal/output`: the default and the ceiling of
   * an agent's `outputByteLimit`. Default {@link MAX_TERMINAL_OUTPUT_BYTES}.
   */
  maxTerminalOutputBytes?: number;
}

/** What the services need of one bridged session. */
export interface ServicedSession {
  /** The session's directories (cwd first), which every path must be inside. */
  readonly paths: SessionPaths;
  /** Its working directory: where a terminal runs when the agent names none. */
  readonly cwd: string;
  /**
   * Runs `report` in order with the v1 agent's updates, as evidence that the running turn's
   * prompt was taken; resolves undefined without running it when nothing may be reported.
   */
  inTurn<T>(report: (session: AgentSession) => Promise<T>): Promise<T | undefined>;
}

/** The bridge's connection to the v1 agent, as the services see it. */
type V1ClientConnection = Connection<
  ClientRequestMap,
  ClientNotificationMap,
  AgentRequestMap,
  AgentNotificationMap
>;

/**
 * The v1 client services a v2 client no longer offers, served by the bridge itself on the machine
 * where the v1 agent runs: `fs/read_text_file` and `fs/write_text_file` inside the session's
 * directories ({@link SessionPaths}), each write reported to the session's v2 clients as a
 * completed `edit` tool call with a diff; `terminal/create`, `output`, `wait_for_exit`, `kill`
 * and `release` as real child processes ({@link BridgeTerminal}), each shown to the v2 clients as
 * a display terminal under the ID the agent gets. A session holds at most
 * {@link MAX_TERMINALS_PER_SESSION} terminals; they are killed on release, when the session is let
 * go, and when the bridge closes or its process exits.
 */
export class ClientServices {
  readonly #find: (sessionId: string) => ServicedSession | undefined;
  /** Live terminals by session, then by ID. */
  readonly #terminals = new Map<string, Map<string, BridgeTerminal>>();
  /** Terminals being started, by session (they count against the bound already). */
  readonly #starting = new Map<string, number>();
  readonly #onExit = (): void => this.closeAll();
  readonly #options: V1ClientServicesOptions;
  readonly #maxTerminals: number;
  readonly #maxOutputBytes: number;

  constructor(
    find: (sessionId: string) => ServicedSession | undefined,
    options: V1ClientServicesOptions = {},
  ) {
    this.#find = find;
    this.#options = options;
    this.#maxTerminals = positive(
      options.maxTerminalsPerSession,
      MAX_TERMINALS_PER_SESSION,
      'maxTerminalsPerSession',
    );
    this.#maxOutputBytes = positive(
      options.maxTerminalOutputBytes,
      MAX_TERMINAL_OUTPUT_BYTES,
      'maxTerminalOutputBytes',
    );
  }

  /** The v1 `clientCapabilities` that advertise what these services serve. */
  get capabilities(): { fs: { readTextFile: boolean; writeTextFile: boolean }; terminal: boolean } {
    return {
      fs: {
        readTextFile: this.#options.readTextFile !== false,
        writeTextFile: this.#options.writeTextFile !== false,
      },
      terminal: this.#options.terminal !== false,
    };
  }

  /** Serves the offered v1 client methods on the connection to the agent (the rest stay -32601). */
  register(v1: V1ClientConnection): void {
    const offered = this.capabilities;
    if (offered.fs.readTextFile) v1.onRequest('fs/read_text_file', (params) => this.#read(params));
    if (offered.fs.writeTextFile) v1.onRequest('fs/write_text_file', (params) => this.#write(params));
    if (!offered.terminal) return;
    v1.onRequest('terminal/create', (params) => this.#create(params));
    v1.onRequest('terminal/output', (params) => this.#terminal(params).output());
    v1.onRequest('terminal/wait_for_exit', async (params) => {
      const { exitCode, signal } = await this.#terminal(params).exited;
      return { exitCode, signal };
    });
    v1.onRequest('terminal/kill', async (params) => {
      const terminal = this.#terminal(params);
      terminal.kill();
      await terminal.exited;
      return {};
    });
    v1.onRequest('terminal/release', (params) => {
      const terminal = this.#terminal(params);
      this.#release(params.sessionId, terminal);
      return {};
    });
  }

  /** Kills and forgets a session's terminals (the session was closed, archived or deleted). */
  closeSession(sessionId: string): void {
    for (const terminal of this.#terminals.get(sessionId)?.values() ?? []) this.#release(sessionId, terminal);
  }

  /** Kills every terminal (the bridge closes, the v1 agent is gone, or the process exits). */
  closeAll(): void {
    for (const sessionId of [...this.#terminals.keys()]) this.closeSession(sessionId);
  }

  #session(sessionId: string): ServicedSession {
    const session = this.#find(sessionId);
    if (session === undefined)
      throw new RpcError(ErrorCodes.ResourceNotFound, 'Session not found', { sessionId });
    return session;
  }

  /** Resolves a path the agent gave, inside the session's directories or allowed by the app. */
  #resolve(
    session: ServicedSession,
    sessionId: string,
    path: string,
    method: OutsidePathQuery['method'],
    pointer?: string,
  ): Promise<ConfinedPath> {
    const allow = this.#options.allowPath;
    return session.paths.resolve(
      path,
      pointer,
      allow === undefined
        ? undefined
        : (realPath) => allow({ sessionId, path, realPath, method, roots: session.paths.roots }),
    );
  }

  async #read(params: V1.ReadTextFileRequest): Promise<V1.ReadTextFileResponse> {
    const session = this.#session(params.sessionId);
    const path = await this.#resolve(session, params.sessionId, params.path, 'fs/read_text_file');
    const buffer = await this.#options.openBuffer?.({
      sessionId: params.sessionId,
      path: params.path,
      realPath: path.real,
    });
    if (buffer === undefined && !path.exists)
      throw new RpcError(ErrorCodes.ResourceNotFound, `File not found: ${params.path}`, {
        path: params.path,
      });
    const text = buffer ?? (await this.#readText(path.real, params.path));
    // v1: `line` is 1-based (0 and 1 both mean the start), `limit` the most lines returned.
    const line = params.line ?? 1;
    const limit = params.limit ?? undefined;
    if (line <= 1 && limit === undefined) return { content: text };
    const lines = text.split(/(?<=\n)/);
    const start = Math.max(line - 1, 0);
    return { content: lines.slice(start, limit === undefined ? undefined : start + limit).join('') };
  }

  /** A file's text, refused -32602 past {@link MAX_TEXT_FILE_BYTES} or when it is not a file. */
  async #readText(real: string, given: string): Promise<string> {
    const info = await stat(real);
    if (!info.isFile())
      throw new RpcError(ErrorCodes.InvalidParams, `/params/path: ${given} is not a file`, {
        pointer: '/params/path',
        path: given,
      });
    if (info.size > MAX_TEXT_FILE_BYTES) throw tooLarge(given, info.size);
    return readFile(real, 'utf8');
  }

  async #write(params: V1.WriteTextFileRequest): Promise<V1.WriteTextFileResponse> {
    const session = this.#session(params.sessionId);
    const path = await this.#resolve(session, params.sessionId, params.path, 'fs/write_text_file');
    const size = Buffer.byteLength(params.content, 'utf8');
    if (size > MAX_TEXT_FILE_BYTES) throw tooLarge(params.path, size, '/params/content');
    const oldText = path.exists ? await this.#readText(path.real, params.path) : undefined;
    await mkdir(dirname(path.real), { recursive: true });
    await writeFile(path.real, params.content, 'utf8');
    const withTexts = Buffer.byteLength(oldText ?? '', 'utf8') + size <= MAX_DIFF_TEXT_BYTES;
    const change: DiffAddChange | DiffModifyChange =
      oldText === undefined
        ? { operation: 'add', path: params.path, ...(withTexts ? { newText: params.content } : {}) }
        : {
            operation: 'modify',
            path: params.path,
            ...(withTexts ? { oldText, newText: params.content } : {}),
          };
    const update: SessionUpdate = {
      sessionUpdate: 'tool_call_update',
      toolCallId: `acp-kit-write-${randomUUID()}`,
      title: `Write ${params.path}`,
      kind: 'edit',
      status: 'completed',
      locations: [{ path: params.path }],
      content: [{ type: 'diff', changes: [change] }],
    };
    // Live only: the v1 agent's session/load replays its own history, which does not hold it.
    await session.inTurn((agentSession) => agentSession.update(update, { retain: false }));
    return {};
  }

  async #create(params: V1.CreateTerminalRequest): Promise<V1.CreateTerminalResponse> {
    const session = this.#session(params.sessionId);
    const starting = this.#starting.get(params.sessionId) ?? 0;
    if ((this.#terminals.get(params.sessionId)?.size ?? 0) + starting >= this.#maxTerminals) {
      throw new RpcError(
        ErrorCodes.InvalidRequest,
        `The session already holds ${this.#maxTerminals} terminals, the most one session may hold: release one first`,
        { limit: this.#maxTerminals },
      );
    }
    this.#starting.set(params.sessionId, starting + 1);
    let terminal: BridgeTerminal;
    try {
      terminal = await this.#start(session, params);
    } finally {
      const left = (this.#starting.get(params.sessionId) ?? 1) - 1;
      if (left === 0) this.#starting.delete(params.sessionId);
      else this.#starting.set(params.sessionId, left);
    }
    if (this.#terminals.size === 0) process.on('exit', this.#onExit);
    const live = this.#terminals.get(params.sessionId) ?? new Map<string, BridgeTerminal>();
    live.set(terminal.id, terminal);
    this.#terminals.set(params.sessionId, live);
    // Shown to the v2 clients in order with the agent's updates; live only, as writes are.
    const command = [params.command, ...(params.args ?? [])].join(' ');
    const display = await session
      .inTurn((agentSession) =>
        agentSession.terminal(
          { command, cwd: params.cwd ?? session.cwd },
          { terminalId: terminal.id, retain: false },
        ),
      )
      .catch(() => undefined);
    terminal.display(display);
    return { terminalId: terminal.id };
  }

  /** Starts a terminal's command in its checked working directory; -32602 when it cannot run. */
  async #start(session: ServicedSession, params: V1.CreateTerminalRequest): Promise<BridgeTerminal> {
    const cwd = await this.#resolve(
      session,
      params.sessionId,
      params.cwd ?? session.cwd,
      'terminal/create',
      '/params/cwd',
    );
    if (!cwd.exists)
      throw new RpcError(ErrorCodes.ResourceNotFound, `Directory not found: ${cwd.given}`, {
        path: cwd.given,
      });
    try {
      return await BridgeTerminal.start(`term-${randomUUID()}`, {
        command: params.command,
        args: params.args ?? [],
        cwd: cwd.real,
        env: Object.fromEntries((params.env ?? []).map((v) => [v.name, v.value])),
        outputByteLimit: Math.min(params.outputByteLimit ?? this.#maxOutputBytes, this.#maxOutputBytes),
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new RpcError(
        ErrorCodes.InvalidParams,
        `/params/command: cannot run ${params.command}: ${reason}`,
        {
          pointer: '/params/command',
          command: params.command,
        },
      );
    }
  }

  #terminal(params: { sessionId: string; terminalId: string }): BridgeTerminal {
    const terminal = this.#terminals.get(params.sessionId)?.get(params.terminalId);
    if (terminal === undefined) {
      throw new RpcError(ErrorCodes.ResourceNotFound, `Terminal not found: ${params.terminalId}`, {
        pointer: '/params/terminalId',
        terminalId: params.terminalId,
      });
    }
    return terminal;
  }

  #release(sessionId: string, terminal: BridgeTerminal): void {
    terminal.kill();
    const live = this.#terminals.get(sessionId);
    live?.delete(terminal.id);
    if (live?.size === 0) this.#terminals.delete(sessionId);
    if (this.#terminals.size === 0) process.off('exit', this.#onExit);
  }
}

/** A bound from the options: a positive integer, or the default when absent. */
function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

/** The -32602 for a file past {@link MAX_TEXT_FILE_BYTES}. */
function tooLarge(path: string, size: number, pointer = '/params/path'): RpcError {
  return new RpcError(
    ErrorCodes.InvalidParams,
    `${pointer}: ${path} is ${size} bytes; the bridge reads and writes text files of up to ${MAX_TEXT_FILE_BYTES} bytes`,
    { pointer, path, size, limit: MAX_TEXT_FILE_BYTES },
  );
}
