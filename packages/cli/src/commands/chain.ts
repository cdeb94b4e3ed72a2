import { type ChainCommand, runChain } from '../chain/run-chain.js';
import { splitCommandLine } from '../chain/command-line.js';
import { UsageError } from '../usage-error.js';

/**
 * `acp-kit chain [--proxy "<command line>"]… -- <agent command…>`: a conductor of the
 * proxy-chains draft on stdio. Each `--proxy` is one proxy's command line (split on spaces, with
 * quotes and backslashes as a shell would, nothing else), in order from the client's side.
 */
export async function runChainCommand(args: string[]): Promise<number> {
  const separator = args.indexOf('--');
  const options = separator < 0 ? args : args.slice(0, separator);
  const [command, ...commandArgs] = separator < 0 ? [] : args.slice(separator + 1);
  const proxies: ChainCommand[] = [];
  for (let i = 0; i < options.length; i++) {
    const option = options[i]!;
    let line: string | undefined;
    if (option === '--proxy') line = options[++i];
    else if (option.startsWith('--proxy=')) line = option.slice('--proxy='.length);
    else throw new UsageError(`unknown option "${option}"`);
    let words: string[];
    try {
      words = splitCommandLine(line ?? '');
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
