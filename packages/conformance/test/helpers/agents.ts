import { fileURLToPath } from 'node:url';

/** The configurable fixture agent (plain Node, no SDK). */
export const FIXTURE_AGENT = fileURLToPath(new URL('../fixtures/fixture-agent.mjs', import.meta.url));

/** The agent written with the official SDK's experimental v2 API. */
export const OFFICIAL_SDK_AGENT = fileURLToPath(
  new URL('../fixtures/official-sdk-agent.ts', import.meta.url),
);

/** Arguments that run the fixture agent with the given breakages. */
export function fixtureArgs(...breaks: string[]): string[] {
  return [FIXTURE_AGENT, '--chunk-delay', '1', ...breaks.flatMap((name) => ['--break', name])];
}
