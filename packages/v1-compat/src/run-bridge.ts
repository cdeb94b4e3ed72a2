import { constants } from 'node:os';
import { onTerminationSignal, spawnTransport, stdioTransport, type Transport } from '@acp-kit/sdk';
import { type BridgeLoss, describeLoss } from './bridge-loss.js';
import { FileIdLedger } from './v1-agent-as-v2/file-id-ledger.js';
import { serveV1AgentAsV2, type V1AgentBridgeOptions } from './v1-agent-as-v2/v1-agent-bridge.js';
import { serveV2AgentAsV1 } from './v2-agent-as-v1/v2-agent-bridge.js';

/** Options of {@link runBridge}. */
export interface RunBridgeOptions {
  /** The protocol version to serve on stdio: `v2` wraps a v1 agent, `v1` wraps a v2 agent. */
  serve: 'v1' | 'v2';
  /** The wrapped agent's command and arguments. */
  command: string;
  args: readonly string[];
  /**
   * The client side (default: this process's stdin/stdout; then SIGINT, SIGTERM and SIGHUP to
   * this process also shut the wrapped agent down before the bridge ends).
   */
  client?: Transport;
  /** How long each step of the wrapped agent's shutdown may take, in ms (default 1000). */
  graceMs?: number;
  /**
   * With `serve: 'v2'`: a file where the bridge keeps the message IDs it issues (a
   * {@link FileIdLedger}), so they stay the same across bridge restarts. Without it they are kept
   * in memory and re-derived after a restart.
   */
  history?: string;
  /**
   * With `serve: 'v2'`: whether the bridge serves the v1 agent's `fs/*` and `terminal/*` requests
   * itself (default `true`; see {@link V1AgentBridgeOptions.clientServices}). `acp-kit bridge
   * --no-client-services` sets it `false`.
   */
  clientServices?: boolean;
  /** Where diagnostics go (default: this process's stderr). The wrapped agent's stderr is passed through here too. */
  log?: (text: string) => void;
}

/** Lets queued writes (error answers to pending requests) reach the client before the process exits. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 50));
}

/**
 * Runs a bridge between this process's stdio and a spawned agent until either side ends.
 * A `history` file that cannot be read or written ends the run at once with 1 and a message
 * naming the file.
 *
 * The agent runs in a process group of its own (POSIX). When the client goes away (stdin ends or
 * the connection fails) or the bridge is told to stop (SIGINT, SIGTERM, SIGHUP on stdio), the
 * agent is shut down and nothing of it is left running: its stdin is closed, then its whole
 * process group gets SIGTERM after `graceMs`, then SIGKILL after another `graceMs` — a wrapper
 * script's children included, also ones that ignore EOF and SIGTERM. On stdio a second signal
 * during that shutdown ends the agent's tree with SIGKILL at once and exits the process with
 * 128 + its number (see the SDK's `onTerminationSignal`).
 *
 * Resolves with the exit code: 0 when the client closed the connection, 1 when the wrapped agent
 * failed first (it exited or wrote something that is not JSON-RPC) — after every pending request
 * was answered with a JSON-RPC error saying so — and 128 + the signal's number after a signal.
 */
export async function runBridge(options: RunBridgeOptions): Promise<number> {
  const log = options.log ?? ((text: string) => process.stderr.write(text));
  const name = options.serve === 'v2' ? 'v1 agent' : 'v2 agent';
  // Signal handlers first: a SIGTERM while the bridge starts (its agent already spawned, the rest
  // not set up yet) must still stop the agent's process group, not kill the bridge and orphan it.
  // They stay for good: a second signal during the shutdown below kills the agent's tree at once
  // and exits, instead of killing the bridge alone and orphaning the agent.
  const watch = options.client === undefined ? onTerminationSignal() : undefined;
  const removeHandlers = (): void => watch?.dispose();
  const signalled = new Promise<{ signal: NodeJS.Signals }>((resolve) => {
    void watch?.signalled.then((signal) => resolve({ signal }));
  });
  let ledger: FileIdLedger | undefined;
  if (options.history !== undefined) {
    try {
      ledger = await FileIdLedger.open(options.history);
    } catch (error) {
      removeHandlers();
      log(`acp-kit bridge: ${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
  }
  const graceMs = options.graceMs ?? 1000;
  const child = spawnTransport(options.command, options.args, { name: `${name} process`, onStderr: log });
  const client = options.client ?? stdioTransport();
  // What a message lost crossing over (see the lossy table) is logged, never dropped silently.
  const onLoss = (loss: BridgeLoss): void => log(`acp-kit bridge: ${describeLoss(loss)}\n`);
  const bridge =
    options.serve === 'v2'
      ? (() => {
          const served = serveV1AgentAsV2({
            agent: child,
            client,
            name,
            onLoss,
            ...(ledger ? { ledger } : {}),
            ...(options.clientServices === undefined ? {} : { clientServices: options.clientServices }),
          });
          return {
            closed: served.bridge.closed,
            connection: served.connection,
            close: () => served.bridge.close(),
          };
        })()
      : serveV2AgentAsV1({
          agent: child,
          client,
          name,
          onLoss,
        });
  const clientGone = new Promise<'client'>((resolve) => bridge.connection.onClose(() => resolve('client')));
  const ended = await Promise.race([clientGone, bridge.closed, signalled]).finally(() => {
    ledger?.close();
    removeHandlers();
  });
  if (ended === 'client' || typeof ended === 'object') {
    bridge.close();
    bridge.connection.close();
    await child.shutdown({ graceMs });
    return ended === 'client' ? 0 : 128 + constants.signals[ended.signal];
  }
  log(`acp-kit bridge: ${ended}\n`);
  await settle();
  bridge.connection.close();
  await child.shutdown({ graceMs });
  return 1;
}
