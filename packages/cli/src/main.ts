import { runAgent } from './commands/agent.js';
import { runBridgeCommand } from './commands/bridge.js';
import { runChainCommand } from './commands/chain.js';
import { runConformanceCommand } from './commands/conformance.js';
import { runDemo } from './commands/demo.js';
import { runInspect } from './commands/inspect.js';
import { runLintCommand } from './commands/lint.js';
import { runProxyCommand } from './commands/proxy.js';
import { runServe } from './commands/serve.js';
import { readFileSync } from 'node:fs';
import { asksForHelp, reportUsageError, USAGE_EXIT_CODE } from './command-line.js';
import { COMMAND_HELP, type CommandName, overview } from './help.js';
import { UsageError } from './usage-error.js';

export { USAGE_EXIT_CODE } from './command-line.js';

type Command = (args: string[]) => Promise<number>;

const commands: Record<CommandName, Command> = {
  agent: runAgent,
  demo: runDemo,
  bridge: runBridgeCommand,
  conformance: runConformanceCommand,
  lint: runLintCommand,
  inspect: runInspect,
  serve: runServe,
  chain: runChainCommand,
  proxy: runProxyCommand,
};

/** The version of @acp-kit/cli, from its package.json. */
function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

/**
 * Runs the `acp-kit` command line and resolves with the process exit code. `--help`/`-h` (before
 * any `--`) prints the command's own usage and exits 0; a usage error is reported one way for
 * every command (its name, the problem, how to get help) with exit code 2.
 */
export async function run(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    process.stderr.write(overview());
    return USAGE_EXIT_CODE;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? rest[0] : undefined;
    if (topic !== undefined && !Object.hasOwn(COMMAND_HELP, topic))
      return reportUsageError(undefined, `unknown command '${topic}'`);
    process.stdout.write(topic === undefined ? overview() : COMMAND_HELP[topic as CommandName].usage);
    return 0;
  }
  if (name === '--version' || name === '-V') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  if (!Object.hasOwn(commands, name)) {
    return reportUsageError(
      undefined,
      name.startsWith('-') ? `unknown option '${name}'` : `unknown command '${name}'`,
    );
  }
  const command = name as CommandName;
  if (asksForHelp(rest)) {
    process.stdout.write(COMMAND_HELP[command].usage);
    return 0;
  }
  try {
    return await commands[command](rest);
  } catch (error) {
    if (error instanceof UsageError) return reportUsageError(command, error.message);
    throw error;
  }
}
