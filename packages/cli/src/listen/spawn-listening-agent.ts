import { readFileSync } from 'node:fs';
import { spawnTransport } from '@acp-kit/sdk';

/** An `acp-kit agent --listen` child process, with what a client needs to connect to it. */
export interface ListeningAgentProcess {
  /** `ws://127.0.0.1:<port>` as the agent printed it. */
  url: string;
  /** The token, read from the file whose path the agent printed. */
  token: string;
  /** Stops the agent (its process group: SIGTERM, then SIGKILL) and resolves when it has exited. */
  stop(): Promise<void>;
}

/** How long the agent gets for each step of its stop (it does not read stdin; SIGTERM ends it). */
const GRACE_MS = 300;

/**
 * Starts `acp-kit agent --listen 127.0.0.1:0 …` and waits until it prints its URL and token file,
 * then reads the token from that file, as any client of a listening agent does. The agent is
 * spawned like every agent acp-kit starts ({@link spawnTransport}: a process group of its own,
 * ended with this process); its stdio carries no messages here.
 */
export function spawnListeningAgent(bin: string, args: string[]): Promise<ListeningAgentProcess> {
  let text = '';
  let onText = (): void => {};
  const agent = spawnTransport(process.execPath, [bin, 'agent', '--listen', '127.0.0.1:0', ...args], {
    name: 'agent',
    onStderr: (chunk) => {
      text += chunk;
      onText();
    },
  });
  // Nothing is read from its stdout; drain it so the agent never blocks on a full pipe.
  agent.child.stdout!.resume();
  const stop = async (): Promise<void> => void (await agent.shutdown({ graceMs: GRACE_MS }));
  return new Promise((resolve, reject) => {
    onText = () => {
      const url = /listening on (wss?:\/\/\S+)\n/.exec(text)?.[1];
      const file = /token file: (\S+)/.exec(text)?.[1];
      if (url === undefined || file === undefined) return;
      onText = () => {};
      try {
        resolve({ url, token: readFileSync(file, 'utf8').trim(), stop });
      } catch (error) {
        void stop();
        reject(error);
      }
    };
    void agent.exited.then((exit) =>
      reject(new Error(`agent exited with code ${exit.code} before listening: ${text}`)),
    );
  });
}
