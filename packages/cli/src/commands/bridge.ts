import { runBridge } from '@acp-kit/v1-compat';
import { parseOptions, splitAtSeparator } from '../command-line.js';
import { UsageError } from '../usage-error.js';

/**
 * `acp-kit bridge --serve v2 [--history <file>] -- <v1 agent command…>` serves a v1 agent to v2
 * clients on stdio (with `--history`, the message IDs it issues are kept in that file across restarts);
 * `acp-kit bridge --serve v1 -- <v2 agent command…>` serves a v2 agent to v1 clients. Exits 0
 * when the client closes the connection, 1 when the wrapped agent fails (after answering every
 * pending request with a JSON-RPC error that says why).
 */
export async function runBridgeCommand(args: string[]): Promise<number> {
  const split = splitAtSeparator(args);
  const command = split.command?.file;
  const commandArgs = split.command?.args ?? [];
  const { serve, history } = parseOptions({
    args: split.options,
    options: { serve: { type: 'string' }, history: { type: 'string' } },
    allowPositionals: false,
  }).values;
  if (serve !== 'v1' && serve !== 'v2') {
    throw new UsageError(`--serve must be v1 or v2${serve === undefined ? '' : `, got "${serve}"`}`);
  }
  if (history === '') throw new UsageError('--history expects a file path');
  if (history !== undefined && serve !== 'v2') {
    throw new UsageError('--history applies to --serve v2 (a v2 agent keeps its own history)');
  }
  if (command === undefined) throw new UsageError('give the agent command after --');
  return runBridge({ serve, command, args: commandArgs, ...(history === undefined ? {} : { history }) });
}
