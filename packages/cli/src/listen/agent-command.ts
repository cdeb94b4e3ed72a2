/**
 * The process acp-kit runs for a stdio agent command: the command itself, or, for an ACP v1 agent
 * (`--v1`), the command behind `acp-kit bridge --serve v2` run by this same CLI (`cliEntry`). The
 * gateway (`acp-kit serve`, one such process per connection) and `acp-kit inspect` (one per run)
 * spawn exactly this, so an agent behaves the same behind either.
 */
export function agentCommand(
  command: string,
  args: readonly string[],
  v1: boolean,
  cliEntry: string,
): [file: string, argv: string[]] {
  return v1
    ? [process.execPath, [cliEntry, 'bridge', '--serve', 'v2', '--', command, ...args]]
    : [command, [...args]];
}
