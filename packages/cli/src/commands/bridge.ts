import { runBridge } from '@acp-kit/v1-compat';
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
  const separator = args.indexOf('--');
  const options = separator < 0 ? args : args.slice(0, separator);
  const [command, ...commandArgs] = separator < 0 ? [] : args.slice(separator + 1);
  let serve: string | undefined;
  let history: string | undefined;
  let clientServices = true;
  for (let i = 0; i < options.length; i++) {
    const option = options[i];
    if (option === '--serve') serve = options[++i];
    else if (option?.startsWith('--serve=')) serve = option.slice('--serve='.length);
    else if (option === '--history') history = options[++i] ?? '';
    else if (option?.startsWith('--history=')) history = option.slice('--history='.length);
    else if (option === '--no-client-services') clientServices = false;
    else throw new UsageError(`unknown option "${option}"`);
  }
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
