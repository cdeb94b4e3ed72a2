/**
 * Our agent on stdio behind `acp-kit serve`, for the capacity benchmark: the CLI's built `serve`
 * command (packages/cli/dist/bin.js; `npm run bench:capacity` builds it first) listening on
 * 127.0.0.1 with a fresh token and no cap on sessions per connection (each load generator puts all
 * its sessions on one connection), running bench/remote-agent.ts in `stdio` mode for each client
 * connection. It reads the endpoint from the line serve prints; stopping it sends SIGTERM to its
 * process group (serve stops its agents on SIGTERM) and SIGKILL to the group if anything is left
 * a few seconds later, so no process outlives the benchmark. Only the benchmark reaches the CLI:
 * the SDK's tests never start this.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ListeningAgent } from './listening-agent.js';

const CWD = fileURLToPath(new URL('..', import.meta.url));
const CLI = fileURLToPath(new URL('../../cli/dist/bin.js', import.meta.url));
const AGENT = fileURLToPath(new URL('./remote-agent.ts', import.meta.url));
const ENDPOINT = /ACP endpoint \(Streamable HTTP and WebSocket\): (\S+)/;

/** Starts `acp-kit serve` with our stdio agent; `memory()` is not available (several processes). */
export async function startServedAgent(): Promise<ListeningAgent> {
  if (!existsSync(CLI))
    throw new Error(`${CLI} is missing: run \`npm run bench:capacity\` at the root, which builds it`);
  const token = randomBytes(24).toString('base64url');
  const child = spawn(
    process.execPath,
    [
      CLI,
      'serve',
      '--listen',
      '127.0.0.1:0',
      '--max-sessions',
      '100000',
      '--',
      process.execPath,
      '--import',
      'tsx',
      AGENT,
      'stdio',
    ],
    {
      cwd: CWD,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ACP_KIT_TOKEN: token },
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killGroup = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // Already gone.
    }
  };
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const match = ENDPOINT.exec(text);
      if (match) {
        child.stderr!.off('data', onData);
        child.off('exit', onExit);
        resolve(match[1]!);
      }
    };
    const onExit = (code: number | null): void =>
      reject(new Error(`acp-kit serve exited with ${code} before printing its endpoint:\n${text}`));
    child.stderr!.on('data', onData);
    child.once('exit', onExit);
  });
  // What serve logs per connection is not needed; keep reading so it never blocks.
  child.stderr!.resume();
  const pid = child.pid!;
  return {
    endpoint: { url, webSocketUrl: url.replace(/^http/, 'ws'), token, pid },
    pid,
    memory: () => Promise.reject(new Error('a served agent is several processes: read /proc')),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) {
        killGroup('SIGKILL');
        return;
      }
      killGroup('SIGTERM');
      const timer = setTimeout(() => killGroup('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
      // Agents serve had not stopped yet, if any.
      killGroup('SIGKILL');
    },
  };
}
