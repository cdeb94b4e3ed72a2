/**
 * The committed results file (`results/agents.json`, the docs page's only source) is a full matrix
 * run of the agents installed here: every pinned agent at its installed version, every path with
 * both clients, every check described. Bumping an agent without rerunning `npm run agents:matrix`
 * fails here. Runs no agent.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AGENTS } from './agents.js';
import { CHECKS, RESULTS_DIR, type ResultsFile } from './results.js';
import { CLIENTS } from './scenario.js';

const file = JSON.parse(readFileSync(`${RESULTS_DIR}agents.json`, 'utf8')) as ResultsFile;

describe('results/agents.json', () => {
  it('was written by the full matrix, for every pinned agent at its installed version', () => {
    expect(file.generatedBy).toBe('npm run agents:matrix');
    expect(file.agents.map((a) => [a.npm, a.version])).toEqual(AGENTS.map((a) => [a.npm, a.version]));
    for (const row of file.rows) {
      const agent = AGENTS.find((a) => a.id === row.agent);
      expect(agent, `row agent ${row.agent}`).toBeDefined();
      expect(row.version, `${row.agent} version in a row`).toBe(agent!.version);
    }
  });

  it('covers every path with both clients for every agent, and describes every check it names', () => {
    for (const agent of AGENTS) {
      const ways = new Set(
        file.rows
          .filter((r) => r.agent === agent.id && r.path !== 'conformance')
          .map((r) => `${r.transport} ${r.client}`),
      );
      for (const transport of ['stdio', 'streamable-http', 'websocket'])
        for (const client of CLIENTS) expect(ways, agent.id).toContain(`${transport} ${client}`);
      expect(file.rows.some((r) => r.agent === agent.id && r.path === 'conformance')).toBe(true);
    }
    for (const row of file.rows) {
      expect(file.checks[row.check], row.check).toBe(CHECKS[row.check]);
      expect(['pass', 'fail']).toContain(row.result);
    }
  });
});
