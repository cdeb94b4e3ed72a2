import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The configurable fixture agent (plain Node, no SDK). */
export const FIXTURE_AGENT = fileURLToPath(new URL('../fixtures/fixture-agent.mjs', import.meta.url));

/** The agent written with the official SDK's experimental v2 API. */
export const OFFICIAL_SDK_AGENT = fileURLToPath(
  new URL('../fixtures/official-sdk-agent.ts', import.meta.url),
);

/** The built acp-kit CLI, whose `agent` command is the reference agent. */
export const CLI_BIN = fileURLToPath(new URL('../../../cli/dist/bin.js', import.meta.url));

/** Fails with a clear message when the CLI has not been built yet. */
export function requireBuiltCli(): void {
  if (!existsSync(CLI_BIN)) {
    throw new Error(
      `${CLI_BIN} does not exist: build the CLI first (npx turbo run build --filter=@acp-kit/cli)`,
    );
  }
}

/** Arguments that run the fixture agent with the given breakages. */
export function fixtureArgs(...breaks: string[]): string[] {
  return [FIXTURE_AGENT, '--chunk-delay', '1', ...breaks.flatMap((name) => ['--break', name])];
}
