import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { TerminalHandle } from '@acp-kit/sdk';
import { OutputTail } from './output-tail.js';

/** How a terminal's command ended, in v1's (and v2's) shape. */
export interface ExitStatus {
  exitCode: number | null;
  signal: string | null;
}

/** What to run, resolved by the caller (the working directory is already checked). */
export interface TerminalCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Bytes of output kept for `terminal/output` (see {@link OutputTail}). */
  readonly outputByteLimit: number;
}

/**
 * How long the exit status waits, after the command exited, for its output pipes to close (a
 * background process it started may hold them open): the status is reported then anyway.
 */
const PIPES_GRACE_MS = 1000;

/**
 * One command the bridge runs for a v1 agent's `terminal/create`: a real child process in a
 * process group of its own (so kill and release stop everything it started), its stdout and stderr
 * kept as one bounded {@link OutputTail} and streamed to the session's v2 display terminal. With
 * no `args` the command is a shell command line (`/bin/sh -c`, as editors run an agent's command);
 * with `args` it is executed directly.
 */
export class BridgeTerminal {
  readonly id: string;
  readonly #child: ChildProcess;
  readonly #tail: OutputTail;
  #status: ExitStatus | undefined;
  /** Resolves with how the command ended, once it exited and its output was read (or the grace passed). */
  readonly exited: Promise<ExitStatus>;
  #display: TerminalHandle | undefined;
  #reporting: Promise<void> = Promise.resolve();
  readonly #displayReady: Promise<void>;
  #setDisplay!: (display: TerminalHandle | undefined) => void;

  private constructor(id: string, child: ChildProcess, outputByteLimit: number) {
    this.id = id;
    this.#child = child;
    this.#tail = new OutputTail(outputByteLimit);
    this.#displayReady = new Promise((resolve) => {
      this.#setDisplay = (display) => {
        this.#display = display;
        resolve();
      };
    });
    const exit = new Promise<ExitStatus>((resolve) =>
      child.once('exit', (code, signal) => resolve({ exitCode: code, signal })),
    );
    // Both streams are pumped through one chain, so the kept output and the streamed output agree.
    const pumps = Promise.all([this.#pump(child.stdout), this.#pump(child.stderr)]);
    this.exited = exit.then(async (status) => {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, PIPES_GRACE_MS);
        timer.unref();
      });
      await Promise.race([pumps, grace]);
      clearTimeout(timer);
      await this.#reporting;
      this.#status = status;
      await this.#displayReady;
      await this.#display?.exit(status).catch(() => undefined);
      return status;
    });
  }

  /** Starts the command; rejects with the spawn error (a command that cannot be run). */
  static start(id: string, command: TerminalCommand): Promise<BridgeTerminal> {
    const shell = command.args.length === 0;
    const child = spawn(command.command, [...command.args], {
      cwd: command.cwd,
      env: { ...process.env, ...command.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      shell,
      windowsHide: true,
    });
    return new Promise((resolve, reject) => {
      child.once('spawn', () => resolve(new BridgeTerminal(id, child, command.outputByteLimit)));
      child.once('error', reject);
    });
  }

  /** The process's ID (the process group's, on POSIX). */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Sets the v2 display terminal the output streams to (none: the output is kept only). */
  display(handle: TerminalHandle | undefined): void {
    this.#setDisplay(handle);
  }

  /** v1 `terminal/output`: the kept output, whether some was dropped, and the exit status once known. */
  output(): { output: string; truncated: boolean; exitStatus?: ExitStatus } {
    return { ...this.#tail.read(), ...(this.#status === undefined ? {} : { exitStatus: this.#status }) };
  }

  /** Stops the command and everything it started (SIGKILL to its process group). */
  kill(): void {
    const pid = this.#child.pid;
    if (pid === undefined) return;
    try {
      if (process.platform === 'win32') this.#child.kill('SIGKILL');
      else process.kill(-pid, 'SIGKILL');
    } catch {
      // The group is gone already.
    }
  }

  async #pump(stream: Readable | null): Promise<void> {
    if (stream === null) return;
    const decoder = new StringDecoder('utf8');
    const take = async (text: string): Promise<void> => {
      if (text === '') return;
      this.#tail.append(text);
      // Awaited: a command that writes faster than the session takes its output waits on its pipe.
      const reported = this.#reporting.then(async () => {
        await this.#displayReady;
        await this.#display?.output(text).catch(() => undefined);
      });
      this.#reporting = reported;
      await reported;
    };
    try {
      for await (const chunk of stream) await take(decoder.write(chunk as Buffer));
    } catch {
      // The pipe failed (the process was killed mid-write): what was read is kept.
    }
    await take(decoder.end());
  }
}
