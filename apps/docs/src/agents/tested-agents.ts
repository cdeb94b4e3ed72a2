import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../paths.ts';

/**
 * The results of the real-agent suite (`packages/real-agents`), as `npm run agents:matrix` wrote
 * them to `packages/real-agents/results/agents.json`: published agents doing real turns offline
 * through acp-kit's bridge and gateway. The "Agents tested with acp-kit" page is built from this
 * file and nothing else, so it shows what a real run saw, never hand-typed claims.
 */

/** One step of an agent's offline recipe: prose (with `code` spans) or a block of code. */
export type RecipeStep = { text: string } | { code: string; lang: string; file?: string };

export interface TestedAgent {
  id: string;
  npm: string;
  version: string;
  /** The model API it speaks (`openai-responses`, `anthropic-messages`). */
  api: string;
  recipe: RecipeStep[];
}

export interface ResultRow {
  agent: string;
  npm: string;
  version: string;
  path: 'bridge' | 'serve' | 'conformance';
  transport: string;
  client: string;
  check: string;
  result: 'pass' | 'fail';
  detail?: string;
  /** A setup other than the agent's default (an unknown model slug, a replay held by the divergent rules). */
  variant?: string;
  date: string;
}

export interface TestedAgentsFile {
  generatedBy: string;
  date: string;
  node: string;
  platform: string;
  checks: Record<string, string>;
  agents: TestedAgent[];
  rows: ResultRow[];
}

/** Where the suite writes the full matrix's results. */
export function resultsPath(): string {
  return join(repoRoot(), 'packages', 'real-agents', 'results', 'agents.json');
}

const fail = (pointer: string, expected: string): never => {
  throw new Error(
    `${resultsPath()}#${pointer}: expected ${expected}; run npm run agents:matrix to rewrite it`,
  );
};

const isString = (value: unknown): value is string => typeof value === 'string' && value !== '';

/**
 * Reads and checks the results file: every field the page shows is there with its type, every row
 * names an agent and a check the file describes, at that agent's version. Throws naming the JSON
 * pointer of the first thing wrong, so a damaged or hand-edited file fails the docs build.
 */
export function parseTestedAgents(text: string): TestedAgentsFile {
  const file = JSON.parse(text) as Partial<TestedAgentsFile>;
  for (const key of ['generatedBy', 'date', 'node', 'platform'] as const)
    if (!isString(file[key])) fail(`/${key}`, 'a string');
  if (typeof file.checks !== 'object' || file.checks === null) fail('/checks', 'an object');
  if (!Array.isArray(file.agents) || file.agents.length === 0) fail('/agents', 'a non-empty array');
  if (!Array.isArray(file.rows) || file.rows.length === 0) fail('/rows', 'a non-empty array');
  const agents = new Map<string, TestedAgent>();
  file.agents!.forEach((agent, i) => {
    for (const key of ['id', 'npm', 'version', 'api'] as const)
      if (!isString(agent[key])) fail(`/agents/${i}/${key}`, 'a string');
    if (!Array.isArray(agent.recipe) || agent.recipe.length === 0)
      fail(`/agents/${i}/recipe`, 'a non-empty array');
    agent.recipe.forEach((step, j) => {
      if (!('text' in step ? isString(step.text) : isString(step.code) && isString(step.lang)))
        fail(`/agents/${i}/recipe/${j}`, '{text} or {code, lang}');
    });
    agents.set(agent.id, agent);
  });
  file.rows!.forEach((row, i) => {
    const agent = agents.get(row.agent);
    if (agent === undefined) fail(`/rows/${i}/agent`, `one of ${[...agents.keys()].join(', ')}`);
    if (row.version !== agent!.version || row.npm !== agent!.npm)
      fail(`/rows/${i}/version`, `${agent!.npm} ${agent!.version}`);
    if (!['bridge', 'serve', 'conformance'].includes(row.path))
      fail(`/rows/${i}/path`, 'bridge, serve or conformance');
    for (const key of ['transport', 'client', 'date'] as const)
      if (!isString(row[key])) fail(`/rows/${i}/${key}`, 'a string');
    if (row.variant !== undefined && !isString(row.variant))
      fail(`/rows/${i}/variant`, 'a string or nothing');
    if (!isString(file.checks![row.check])) fail(`/rows/${i}/check`, 'a check described in /checks');
    if (row.result !== 'pass' && row.result !== 'fail') fail(`/rows/${i}/result`, '"pass" or "fail"');
  });
  return file as TestedAgentsFile;
}

/** The committed results file, checked. */
export function readTestedAgents(): TestedAgentsFile {
  return parseTestedAgents(readFileSync(resultsPath(), 'utf8'));
}

/** One column of an agent's table: a way in (path, transport, client). */
export interface Column {
  key: string;
  label: string;
}

/** An agent's results as a table: checks down, ways in across; a cell is the row or undefined (not run). */
export function agentTable(file: TestedAgentsFile, agentId: string) {
  const rows = file.rows.filter((row) => row.agent === agentId);
  const columns: Column[] = [];
  const keyOf = (row: ResultRow) => `${row.path} ${row.transport} ${row.client} ${row.variant ?? ''}`;
  for (const row of rows) {
    const key = keyOf(row);
    if (columns.some((c) => c.key === key)) continue;
    const label =
      row.path === 'conformance'
        ? 'acp-kit conformance (bridge, stdio)'
        : `${row.path === 'bridge' ? 'bridge --serve v2' : 'serve --v1'} · ${row.transport} · ${row.client} client${row.variant === undefined ? '' : ` · ${row.variant}`}`;
    columns.push({ key, label });
  }
  const checks = [...new Set(rows.map((row) => row.check))];
  return {
    columns,
    checks: checks.map((check) => ({
      check,
      cells: columns.map((column) => rows.find((row) => row.check === check && keyOf(row) === column.key)),
    })),
    passed: rows.filter((row) => row.result === 'pass').length,
    total: rows.length,
  };
}

/** Splits prose on backticks: odd pieces are code spans. */
export function codeSpans(text: string): { code: boolean; text: string }[] {
  return text.split('`').map((piece, i) => ({ code: i % 2 === 1, text: piece }));
}
