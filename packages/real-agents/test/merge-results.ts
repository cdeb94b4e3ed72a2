/**
 * Vitest global setup: clears `results/runs/` before the run and, after it, merges what each test
 * file wrote there into one results file — `results/agents.json` (committed; the docs page is built
 * from it) on the full matrix (`npm run agents:matrix`), `results/check-run.json` (not committed)
 * on the subset in `npm run check`, so a partial run never replaces the published matrix.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { RESULTS_DIR, RUNS_DIR, type ResultRow, type ResultsFile } from './results.js';

export default function setup(): () => void {
  rmSync(RUNS_DIR, { recursive: true, force: true });
  mkdirSync(RUNS_DIR, { recursive: true });
  return () => {
    const rows: ResultRow[] = [];
    for (const name of readdirSync(RUNS_DIR).sort())
      rows.push(...(JSON.parse(readFileSync(`${RUNS_DIR}${name}`, 'utf8')) as ResultRow[]));
    if (rows.length === 0) return;
    const full = process.env.ACP_KIT_AGENTS_MATRIX === 'full';
    const file: ResultsFile = {
      generatedBy: full ? 'npm run agents:matrix' : 'npm test -w @acp-kit/real-agents (the check subset)',
      date: new Date().toISOString(),
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      rows,
    };
    writeFileSync(
      `${RESULTS_DIR}${full ? 'agents.json' : 'check-run.json'}`,
      `${JSON.stringify(file, null, 2)}\n`,
    );
  };
}
