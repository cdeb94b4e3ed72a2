import { describe, expect, it } from 'vitest';
import { runConformance } from '../src/index.js';
import { fixtureArgs } from './helpers/agents.js';

/** `sh -c` that starts the fixture agent after `seconds`, as a slow `npx tsx …` start does. */
function slowStart(seconds: number): { command: string; args: string[] } {
  const [script, ...rest] = fixtureArgs();
  return {
    command: 'sh',
    args: ['-c', `sleep ${seconds}; exec "$0" "$@"`, process.execPath, script!, ...rest],
  };
}

describe('the wait for an agent’s first answer', () => {
  it('by default waits past 10 s for an agent that is slow to start, then judges it as usual', async () => {
    const report = await runConformance({ ...slowStart(12), timeoutMs: 5000, scenarios: ['lifecycle'] });
    expect(report.scenarios.map((scenario) => [scenario.name, scenario.status, scenario.note])).toEqual([
      ['lifecycle', 'ok', undefined],
    ]);
  }, 120_000);

  it('gives up at startupTimeoutMs with the wait in the note', async () => {
    const report = await runConformance({
      ...slowStart(5),
      timeoutMs: 1000,
      startupTimeoutMs: 1500,
      scenarios: ['lifecycle'],
    });
    expect(report.scenarios[0]).toMatchObject({ name: 'lifecycle', status: 'aborted' });
    expect(report.scenarios[0]!.note).toContain('no answer to initialize within 1500 ms');
  }, 60_000);
});
