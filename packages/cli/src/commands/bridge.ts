import { runBridge } from '@acp-kit/v1-compat';
import { parseOptions, splitAtSeparator } from '../command-line.js';
import { UsageError } from '../usage-error.js';

/**
 * `acp-kit bridge --serve v2 [--history <file>] [--no-client-services] -- <v1 agent command…>`
 * serves a v1 agent to v2 clients on stdio (with `--history`, the message IDs it issues are kept in
 * that file across restarts; the bridge serves the agent's `fs/*` and `terminal/*` requests itself
 * unless `--no-client-services`);
 * `acp-kit bridge --serve v1 -- <v2 agent command…>` serves a v2 agent to v1 clients. Exits 0
 * when the client closes the connection, 1 when the wrapped agent fails (after answering every
 * pending request with a JSON-RPC error that says why).
 */
export async function runBridgeCommand(args: string[]): Promise<number> {
  const split = splitAtSeparator(args);
  const command = split.command?.file;
  const commandArgs = split.command?.args ?? [];
  const values = parseOptions({
    args: split.options,
    options: {
      serve: { type: 'string' },
      history: { type: 'string' },
      'no-client-services': { type: 'boolean' },
    },
    allowPositionals: false,
  }).values;
  const { serve, history } = values;
  const clientServices = values['no-client-services'] !== true;
  if (serve !== 'v1' && serve !== 'v2') {
    throw new UsageError(`--serve must be v1 or v2${serve === undefined ? '' : `, got "${serve}"`}`);
  }
  if (history === '') throw new UsageError('--history expects a file path');
  if (history !== undefined && serve !== 'v2') {
    throw new UsageError('--history applies to --serve v2 (a v2 agent keeps its own history)');
  }
  if (!clientServices && serve !== 'v2') {
    throw new UsageError(
      '--no-client-services applies to --serve v2 (it is the v1 agent that asks for them)',
    );
  }
  if (command === undefined) throw new UsageError('give the agent command after --');
  return runBridge({
    serve,
    command,
    args: commandArgs,
    ...(history === undefined ? {} : { history }),
    ...(clientServices ? {} : { clientServices: false }),
  });
}
