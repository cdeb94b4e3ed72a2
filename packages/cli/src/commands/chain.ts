import { type ChainCommand, runChain } from '../chain/run-chain.js';
import { splitCommandLine } from '../chain/command-line.js';
import { parseOptions, splitAtSeparator } from '../command-line.js';
import { UsageError } from '../usage-error.js';

/**
 * `acp-kit chain [--proxy "<command line>"]… -- <agent command…>`: a conductor of the
 * proxy-chains draft on stdio. Each `--proxy` is one proxy's command line (split on spaces, with
 * quotes and backslashes as a shell would, nothing else), in order from the client's side.
 */
export async function runChainCommand(args: string[]): Promise<number> {
  const split = splitAtSeparator(args);
  const command = split.command?.file;
  const commandArgs = split.command?.args ?? [];
  const { proxy: lines = [] } = parseOptions({
    args: split.options,
    options: { proxy: { type: 'string', multiple: true } },
    allowPositionals: false,
  }).values;
  const proxies: ChainCommand[] = [];
  for (const line of lines) {
    let words: string[];
    try {
      words = splitCommandLine(line);
    } catch (error) {
      throw new UsageError(`--proxy: ${error instanceof Error ? error.message : String(error)}`);
    }
    const [program, ...programArgs] = words;
    if (program === undefined) throw new UsageError('--proxy expects a command line');
    proxies.push({ command: program, args: programArgs });
  }
  if (command === undefined) throw new UsageError('give the agent command after --');
  return runChain({ proxies, agent: { command, args: commandArgs } });
}
