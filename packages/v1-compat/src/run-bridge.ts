import { spawnTransport, stdioTransport, type Transport } from '@acp-kit/sdk';
import { FileIdLedger } from './v1-agent-as-v2/file-id-ledger.js';
import { serveV1AgentAsV2 } from './v1-agent-as-v2/v1-agent-bridge.js';
import { serveV2AgentAsV1 } from './v2-agent-as-v1/v2-agent-bridge.js';

/** Options of {@link runBridge}. */
export interface RunBridgeOptions {
  /** The protocol version to serve on stdio: `v2` wraps a v1 agent, `v1` wraps a v2 agent. */
  serve: 'v1' | 'v2';
  /** The wrapped agent's command and arguments. */
  command: string;
  args: readonly string[];
  /** The client side (default: this process's stdin/stdout). */
  client?: Transport;
  /**
   * With `serve: 'v2'`: a file where the bridge keeps the message IDs it issues (a
   * {@link FileIdLedger}), so they stay the same across bridge restarts. Without it they are kept
   * in memory and re-derived after a restart.
   */
  history?: string;
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
 * Resolves with the exit code: 0 when the client closed the connection, 1 when the wrapped agent
 * failed first (it exited or wrote something that is not JSON-RPC) — after every pending request
 * was answered with a JSON-RPC error saying so.
 */
export async function runBridge(options: RunBridgeOptions): Promise<number> {
  const log = options.log ?? ((text: string) => process.stderr.write(text));
  const name = options.serve === 'v2' ? 'v1 agent' : 'v2 agent';
  let ledger: FileIdLedger | undefined;
  if (options.history !== undefined) {
    try {
      ledger = await FileIdLedger.open(options.history);
    } catch (error) {
      log(`acp-kit bridge: ${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
  }
  const child = spawnTransport(options.command, options.args, { name: `${name} process`, onStderr: log });
  const client = options.client ?? stdioTransport();
  const bridge =
    options.serve === 'v2'
      ? (() => {
          const served = serveV1AgentAsV2({ agent: child, client, name, ...(ledger ? { ledger } : {}) });
          return {
            closed: served.bridge.closed,
            connection: served.connection,
            close: () => served.bridge.close(),
          };
        })()
      : serveV2AgentAsV1({ agent: child, client, name });
  const clientGone = new Promise<'client'>((resolve) => bridge.connection.onClose(() => resolve('client')));
  const ended = await Promise.race([clientGone, bridge.closed]).finally(() => ledger?.close());
  if (ended === 'client') {
    bridge.close();
    await child.shutdown({ graceMs: 1000 });
    return 0;
  }
  log(`acp-kit bridge: ${ended}\n`);
  await settle();
  bridge.connection.close();
  await child.shutdown({ graceMs: 1000 });
  return 1;
}
