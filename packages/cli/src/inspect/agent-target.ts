import { connectHttp, connectWebSocket, spawnTransport, type Transport } from '@acp-kit/sdk';
import { agentCommand } from '../listen/agent-command.js';

/** What the inspector drives: a stdio agent it spawns (optionally behind the v1 bridge), or a remote endpoint. */
export type AgentTarget =
  | { kind: 'stdio'; command: string; args: readonly string[]; v1: boolean }
  | { kind: 'remote'; url: string; token?: string };

/** How one run of the agent ended. */
export interface RunEnd {
  /** Exit code of a spawned agent (null when a signal ended it, or for a remote one). */
  code: number | null;
  signal: string | null;
  /** Why the connection ended, in a sentence. */
  reason: string;
  /** The last part of the agent's stderr (spawned agents only). */
  stderr: string;
}

/** One live connection to the agent: raw frames in and out, and how it ends. */
export interface AgentRun {
  /** A sentence naming what runs (`pid 123: node agent.js`, `ws://…`). */
  readonly description: string;
  /** Sends one raw frame (the page's JSON-RPC text) to the agent. */
  send(text: string): Promise<void>;
  /** Stops the agent (or closes the remote connection); resolves once it ended. */
  stop(): Promise<void>;
}

/** Receives what one run of the agent produces. */
export interface AgentRunListener {
  onFrame(text: string): void;
  onStderr(text: string): void;
  onEnd(end: RunEnd): void;
}

/** The most stderr kept for the exit report: enough for a stack trace, bounded against a flood. */
const STDERR_TAIL = 16 * 1024;

/** The process a stdio target spawns: the same as the gateway's for that command (see {@link agentCommand}). */
export function spawnedCommand(
  target: Extract<AgentTarget, { kind: 'stdio' }>,
  cliEntry: string,
): [string, string[]] {
  return agentCommand(target.command, target.args, target.v1, cliEntry);
}

function relay(transport: Transport, listener: AgentRunListener, onClose: (reason?: Error) => void): void {
  transport.reader.listen({
    onMessage: (text) => listener.onFrame(text),
    // A frame that is not text (bad UTF-8) is shown to the page as a garbage frame too.
    onFrameError: (error) => listener.onFrame(`\u0000frame error: ${error.message}`),
    onClose,
  });
}

/**
 * Starts one run of the target. Never throws for a failing agent: a spawn failure, a crash or a
 * refused remote connection all end the run through `onEnd`, so the inspector stays up.
 */
export async function startRun(
  target: AgentTarget,
  cliEntry: string,
  listener: AgentRunListener,
): Promise<AgentRun> {
  if (target.kind === 'remote') {
    let transport: Transport;
    try {
      transport = target.url.startsWith('ws')
        ? await connectWebSocket(target.url, target.token === undefined ? {} : { token: target.token })
        : await connectHttp(target.url, target.token === undefined ? {} : { token: target.token });
    } catch (error) {
      const reason = `could not connect to ${target.url}: ${error instanceof Error ? error.message : String(error)}`;
      queueMicrotask(() => listener.onEnd({ code: null, signal: null, reason, stderr: '' }));
      return { description: target.url, send: async () => {}, stop: async () => {} };
    }
    let ended = false;
    relay(transport, listener, (reason) => {
      if (ended) return;
      ended = true;
      listener.onEnd({
        code: null,
        signal: null,
        reason: reason ? `connection lost: ${reason.message}` : 'connection closed',
        stderr: '',
      });
    });
    return {
      description: target.url,
      send: (text) => transport.writer.write(text),
      stop: async () => {
        await transport.writer.close().catch(() => {});
        transport.reader.dispose();
      },
    };
  }
  const [file, argv] = spawnedCommand(target, cliEntry);
  let stderr = '';
  const child = spawnTransport(file, argv, {
    onStderr: (text) => {
      stderr = (stderr + text).slice(-STDERR_TAIL);
      listener.onStderr(text);
    },
  });
  relay(child, listener, () => {});
  void child.exited.then((exit) => {
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    listener.onEnd({ code: exit.code, signal: exit.signal, reason: `the agent ${how}`, stderr });
  });
  return {
    // The command as it was given (with --v1, behind the bridge as acp-kit runs it), not the
    // inspector's own node and CLI paths.
    description: `pid ${child.child.pid ?? '(not started)'}: ${[
      ...(target.v1 ? ['acp-kit', 'bridge', '--serve', 'v2', '--'] : []),
      target.command,
      ...target.args,
    ].join(' ')}`,
    send: (text) => child.writer.write(text),
    stop: async () => {
      await child.shutdown({ graceMs: 500 });
    },
  };
}
