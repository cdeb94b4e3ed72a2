import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** An `acp-kit agent --listen` child process, with what a client needs to connect to it. */
export interface ListeningAgentProcess {
  /** `ws://127.0.0.1:<port>` as the agent printed it. */
  url: string;
  /** The token, read from the file whose path the agent printed. */
  token: string;
  /** Stops the agent (SIGTERM) and resolves when it has exited. */
  stop(): Promise<void>;
}

/**
 * Starts `acp-kit agent --listen 127.0.0.1:0 …` and waits until it prints its URL and token file,
 * then reads the token from that file, as any client of a listening agent does.
 */
export function spawnListeningAgent(bin: string, args: string[]): Promise<ListeningAgentProcess> {
  const child = spawn(process.execPath, [bin, 'agent', '--listen', '127.0.0.1:0', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let text = '';
  child.stderr.setEncoding('utf8');
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk: string) => {
      text += chunk;
      const url = /listening on (wss?:\/\/\S+)\n/.exec(text)?.[1];
      const file = /token file: (\S+)/.exec(text)?.[1];
      if (url === undefined || file === undefined) return;
      try {
        resolve({ url, token: readFileSync(file, 'utf8').trim(), stop });
      } catch (error) {
        void stop();
        reject(error);
      }
    });
    child.once('exit', (code) =>
      reject(new Error(`agent exited with code ${code} before listening: ${text}`)),
    );
  });
}
