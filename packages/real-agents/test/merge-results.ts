/**
 * Vitest global setup: clears `results/runs/` before the run and, after it, merges what each test
 * file wrote there into one results file — `results/agents.json` (committed; the docs page is built
 * from it) on the full matrix (`npm run agents:matrix`), `results/check-run.json` (not committed)
 * on the subset in `npm run check`, so a partial run never replaces the published matrix.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { AGENTS } from './agents.js';
import { CHECKS, RESULTS_DIR, RUNS_DIR, type ResultRow, type ResultsFile } from './results.js';

/** Merges `results/runs/*.json` into the results file; returns its path, or undefined with no rows. */
export function mergeRuns(full: boolean): string | undefined {
  const rows: ResultRow[] = [];
  for (const name of readdirSync(RUNS_DIR).sort())
    rows.push(...(JSON.parse(readFileSync(`${RUNS_DIR}${name}`, 'utf8')) as ResultRow[]));
  if (rows.length === 0) return undefined;
  const ran = new Set(rows.map((row) => row.agent));
  const file: ResultsFile = {
    generatedBy: full ? 'npm run agents:matrix' : 'npm test -w @acp-kit/real-agents (the check subset)',
    date: rows
      .map((row) => row.date)
      .sort()
      .at(-1)!,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    checks: Object.fromEntries(Object.entries(CHECKS).filter(([id]) => rows.some((row) => row.check === id))),
    agents: AGENTS.filter((agent) => ran.has(agent.id)).map(({ id, npm, version, api, recipe }) => ({
      id,
      npm,
      version,
      api,
      recipe,
    })),
    rows,
  };
  const path = `${RESULTS_DIR}${full ? 'agents.json' : 'check-run.json'}`;
  writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`);
  return path;
}

export default function setup(): () => void {
  rmSync(RUNS_DIR, { recursive: true, force: true });
  mkdirSync(RUNS_DIR, { recursive: true });
  return () => {
    mergeRuns(process.env.ACP_KIT_AGENTS_MATRIX === 'full');
  };
}
