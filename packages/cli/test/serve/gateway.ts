/** Starts `acp-kit serve` as a child process and reads its URL and token as a user would. */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { BIN, requireBuild } from '../harness.js';

/** A running gateway: its process, endpoint URL, token and everything it wrote to stderr. */
export interface Gateway {
  child: ChildProcess;
  url: string;
  token: string;
  stderr(): string;
  /** SIGKILLs the gateway if it still runs (for afterEach). */
  kill(): void;
}

/** `acp-kit serve --listen 127.0.0.1:0 [flags] -- <agent…>`; resolves once it listens. */
export async function startGateway(agent: string[], flags: string[] = []): Promise<Gateway> {
  requireBuild();
  const child = spawn(process.execPath, [BIN, 'serve', '--listen', '127.0.0.1:0', ...flags, '--', ...agent], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let text = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    text += chunk;
  });
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', () => {
      if (/each connection runs: /.test(text)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`serve exited with code ${code}: ${text}`)));
  });
  const url = /ACP endpoint \(Streamable HTTP and WebSocket\): (\S+)/.exec(text)![1]!;
  const token = readFileSync(/token file: (\S+)/.exec(text)![1]!, 'utf8').trim();
  return {
    child,
    url,
    token,
    stderr: () => text,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
