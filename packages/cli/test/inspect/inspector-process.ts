import { type ChildProcess, spawn } from 'node:child_process';
import { BIN } from '../harness.js';

/** An `acp-kit inspect` process under test, with the URL it printed. */
export interface InspectorProcess {
  /** The URL with the session token in its fragment, as printed. */
  url: string;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  token: string;
  child: ChildProcess;
  /** Everything the inspector wrote to stderr so far. */
  stderr(): string;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/** Runs `acp-kit inspect <args…>` and resolves once it printed its URL on stdout. */
export function startInspectorProcess(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<InspectorProcess> {
  const child = spawn(process.execPath, [BIN, 'inspect', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    err += text;
  });
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      out += text;
      const url = /^(http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+)\n/.exec(out);
      if (url)
        resolve({ url: url[0].trim(), origin: url[1]!, token: url[2]!, child, stderr: () => err, stop });
    });
    child.once('exit', (code) =>
      reject(new Error(`acp-kit inspect exited with ${code} before printing its URL: ${err}`)),
    );
  });
}
