import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  agentTable,
  codeSpans,
  parseTestedAgents,
  readTestedAgents,
  resultsPath,
} from '../src/agents/tested-agents.ts';

describe('the "Agents tested with acp-kit" page data', () => {
  it('reads the committed results file of a real matrix run, each agent with a recipe and rows', () => {
    const file = readTestedAgents();
    expect(file.generatedBy).toBe('npm run agents:matrix');
    expect(file.agents.map((a) => a.npm)).toEqual(
      expect.arrayContaining(['@zed-industries/codex-acp', '@zed-industries/claude-agent-acp']),
    );
    for (const agent of file.agents) {
      const table = agentTable(file, agent.id);
      expect(table.total).toBeGreaterThan(0);
      expect(table.columns.map((c) => c.label)).toContainEqual(expect.stringContaining('bridge --serve v2'));
      expect(agent.recipe.some((step) => 'code' in step)).toBe(true);
    }
  });

  it('refuses a results file whose row names a version the file does not describe, naming the pointer', () => {
    const file = JSON.parse(readFileSync(resultsPath(), 'utf8'));
    file.rows[1].version = '0.0.1';
    expect(() => parseTestedAgents(JSON.stringify(file))).toThrow(
      /agents\.json#\/rows\/1\/version: expected /,
    );
  });

  it('refuses a row with a check the file does not describe', () => {
    const file = JSON.parse(readFileSync(resultsPath(), 'utf8'));
    file.rows[0].check = 'made.up';
    expect(() => parseTestedAgents(JSON.stringify(file))).toThrow(
      /#\/rows\/0\/check: expected a check described/,
    );
  });

  it('splits prose on backticks into code spans', () => {
    expect(codeSpans('set `HOME` and `X=1` first')).toEqual([
      { code: false, text: 'set ' },
      { code: true, text: 'HOME' },
      { code: false, text: ' and ' },
      { code: true, text: 'X=1' },
      { code: false, text: ' first' },
    ]);
  });
});
