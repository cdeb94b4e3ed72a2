/**
 * `npm run bench -w @acp-kit/cli`: how `acp-kit inspect` copes with a long session, in Debian's
 * Chromium. The big-session agent (test/inspect/fixtures/big-session-agent.mjs) replays 10 000
 * messages (40 000 chunks) on resume; the page's time to first render of the whole session (from
 * the click on Resume to the header counting every message and the last one on screen) and its
 * memory afterwards (JS heap after a forced garbage collection, DOM nodes) are printed, with the
 * inspector process's resident memory. Run after `npm run build`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openChromium } from '../test/inspect/chromium.js';
import { startInspectorProcess } from '../test/inspect/inspector-process.js';

const BIG_AGENT = fileURLToPath(new URL('../test/inspect/fixtures/big-session-agent.mjs', import.meta.url));
const MESSAGES = Number(process.env.MESSAGES ?? 10_000);
const CHUNKS = Number(process.env.CHUNKS ?? 40_000);
const RUNS = Number(process.env.RUNS ?? 3);

const rssOf = (pid: number): number =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

const browser = await openChromium();
const rows: Record<string, string | number>[] = [];
try {
  for (let run = 1; run <= RUNS; run++) {
    const inspector = await startInspectorProcess([
      '--',
      process.execPath,
      BIG_AGENT,
      '--messages',
      String(MESSAGES),
      '--chunks',
      String(CHUNKS),
    ]);
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    try {
      await page.goto(inspector.url);
      await page.locator('#status', { hasText: 'connected to the inspector' }).waitFor();
      await page.locator('#agent-status', { hasText: 'started' }).waitFor();
      await page.click('#initialize');
      await page.locator('#log', { hasText: 'initialized' }).waitFor();
      await page.fill('#resume-id', 'big-session');
      await page.check('#replay');
      const session = 'section.session[data-session-id="big-session"]';
      const clicked = Date.now();
      await page.click('#resume');
      await page.locator('#log', { hasText: 'resumed with replay' }).waitFor({ timeout: 300_000 });
      const answered = Date.now() - clicked;
      await page
        .locator(`${session} .count`, { hasText: `${MESSAGES} message(s)` })
        .waitFor({ timeout: 300_000 });
      await page
        .locator(`${session} .feed .message .text`, { hasText: `m${MESSAGES - 1}w0` })
        .waitFor({ timeout: 300_000 });
      const firstRender = Date.now() - clicked;
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('HeapProfiler.collectGarbage');
      await cdp.send('Performance.enable');
      const { metrics } = await cdp.send('Performance.getMetrics');
      const metric = (name: string): number => metrics.find((m) => m.name === name)?.value ?? 0;
      const domRows = await page.locator('#traffic-body tr').count();
      rows.push({
        run,
        'resume answered': `${answered} ms`,
        'first render (all messages)': `${firstRender} ms`,
        'page JS heap (after GC)': mb(metric('JSHeapUsedSize')),
        'DOM nodes': metric('Nodes'),
        'traffic rows in DOM': domRows,
        'inspector RSS': mb(rssOf(inspector.child.pid!)),
      });
    } finally {
      await page.close();
      await inspector.stop();
    }
  }
} finally {
  await browser.close();
}
console.log(
  `acp-kit inspect: resume with replay of a ${MESSAGES}-message session (${CHUNKS} chunks, ${MESSAGES + CHUNKS + 1} updates), Chromium ${process.platform}-${process.arch}`,
);
console.table(rows);
