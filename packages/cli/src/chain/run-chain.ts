import { constants } from 'node:os';
import { onTerminationSignal, spawnTransport, stdioTransport, type Transport } from '@acp-kit/sdk';
import { type ChainComponent, serveConductor } from '@acp-kit/sdk/proxy';

/** One program of a chain: its command and arguments. */
export interface ChainCommand {
  readonly command: string;
  readonly args: readonly string[];
}

/** Options of {@link runChain}. */
export interface RunChainOptions {
  /** The proxies, in order from the client's side. */
  readonly proxies: readonly ChainCommand[];
  /** The final agent. */
  readonly agent: ChainCommand;
  /** The client side (default: this process's stdin/stdout, and then signals stop the chain too). */
  readonly client?: Transport;
  /** How long each step of a component's shutdown may take, in ms (default 1000). */
  readonly graceMs?: number;
  /** Where diagnostics and the components' stderr go (default: this process's stderr). */
  readonly log?: (text: string) => void;
}

/** How messages name a component: its place in the chain and its command line. */
function label(kind: string, { command, args }: ChainCommand): string {
  const line = [command, ...args].join(' ');
  return `${kind} (${line.length > 80 ? `${line.slice(0, 77)}...` : line})`;
}

/**
 * Runs a proxy chain on this process's stdio: spawns every proxy and the agent (each in a process
 * group of its own), serves the conductor ({@link serveConductor}) between the client and them —
 * logging each chain method it refused to forward (a `proxy/successor` from the client…) — and
 * stops them all when it ends — nothing is left running, also a component that ignores EOF and
 * SIGTERM; a second signal during that shutdown kills them at once (SIGKILL) and exits the process
 * with 128 + its number. Resolves with 0 when the client closed the connection, 1 when a component failed (it
 * exited or wrote something that is not JSON-RPC) — after every request waiting on the chain was
 * answered with a -32603 naming it — and 128 + the signal's number after a signal.
 */
export async function runChain(options: RunChainOptions): Promise<number> {
  const log = options.log ?? ((text: string) => process.stderr.write(text));
  // On stdio, a second signal while the components shut down kills their trees at once and exits.
  const watch = options.client === undefined ? onTerminationSignal() : undefined;
  const signalled = new Promise<{ signal: NodeJS.Signals }>((resolve) => {
    void watch?.signalled.then((signal) => resolve({ signal }));
  });
  const graceMs = options.graceMs ?? 1000;
  const spawnOne = (name: string, program: ChainCommand) => {
    const child = spawnTransport(program.command, program.args, { name, onStderr: log });
    return { child, component: { transport: child, name } satisfies ChainComponent };
  };
  const proxies = options.proxies.map((program, i) =>
    spawnOne(label(`proxy ${i + 1} of ${options.proxies.length}`, program), program),
  );
  const agent = spawnOne(label('agent', options.agent), options.agent);
  const children = [...proxies, agent].map((spawned) => spawned.child);
  const conductor = serveConductor({
    client: options.client ?? stdioTransport(),
    proxies: proxies.map((spawned) => spawned.component),
    agent: agent.component,
    onRefused: ({ from, method, kind, reason }) =>
      log(
        `acp-kit chain: ${kind === 'request' ? 'refused' : 'dropped'} the ${method} ${kind} from ${from}: ${method} ${reason}\n`,
      ),
  });
  const ended = await Promise.race([conductor.ended, signalled]).finally(() => {
    watch?.dispose();
  });
  if ('reason' in ended && ended.reason === 'component-failed') {
    log(`acp-kit chain: ${ended.message}\n`);
    // Let the -32603 answers to the requests that were waiting reach the client.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  conductor.close();
  await Promise.all(children.map((child) => child.shutdown({ graceMs })));
  if ('signal' in ended) return 128 + constants.signals[ended.signal];
  return ended.reason === 'client-closed' ? 0 : 1;
}
