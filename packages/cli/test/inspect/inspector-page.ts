import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { requireBuild } from '../harness.js';
import { openChromium } from './chromium.js';
import { type InspectorProcess, startInspectorProcess } from './inspector-process.js';

/**
 * One Chromium for a test file and the inspectors it opens pages on. Every page reports its
 * console errors, page errors and requests outside its inspector into `problems`.
 */
export class InspectorBrowser {
  readonly problems: string[] = [];
  readonly #running = new Set<InspectorProcess>();
  #browser: Awaited<ReturnType<typeof openChromium>> | undefined;

  /** Checks the build and starts Chromium (installing Debian's package when missing). */
  async start(): Promise<void> {
    requireBuild();
    this.#browser = await openChromium();
  }

  get context(): BrowserContext {
    if (this.#browser === undefined) throw new Error('InspectorBrowser.start() first');
    return this.#browser.context;
  }

  /** Starts `acp-kit inspect <args>` and opens its URL in a new page. */
  async inspect(
    args: string[],
    env?: NodeJS.ProcessEnv,
    viewport?: { width: number; height: number },
  ): Promise<{ page: Page; inspector: InspectorProcess }> {
    const inspector = await startInspectorProcess(args, env);
    this.#running.add(inspector);
    const page = await this.context.newPage();
    if (viewport) await page.setViewportSize(viewport);
    page.on('console', (message) => {
      if (message.type() === 'error') this.problems.push(`console error: ${message.text()}`);
    });
    page.on('pageerror', (error) => this.problems.push(`page error: ${error.stack ?? error.message}`));
    page.on('request', (request) => {
      if (!request.url().startsWith(inspector.origin) && !request.url().startsWith('blob:')) {
        this.problems.push(`request outside the inspector: ${request.url()}`);
      }
    });
    await page.goto(inspector.url);
    await page.locator('#status', { hasText: 'connected to the inspector' }).waitFor();
    return { page, inspector };
  }

  /** Closes the page and stops its inspector. */
  async finish(page: Page, inspector: InspectorProcess): Promise<void> {
    await page.close();
    await inspector.stop();
    this.#running.delete(inspector);
  }

  /** Adds an inspector the test started itself, so `stop()` ends it too. */
  track(inspector: InspectorProcess): void {
    this.#running.add(inspector);
  }

  untrack(inspector: InspectorProcess): void {
    this.#running.delete(inspector);
  }

  /** Stops every inspector still running and the browser. */
  async stop(): Promise<void> {
    await Promise.all([...this.#running].map((inspector) => inspector.stop()));
    await this.#browser?.close();
  }
}

/** Initializes as a v1 or v2 client and creates a session; resolves with its ID. */
export async function initializeAndCreateSession(page: Page, version: 1 | 2 = 2): Promise<string> {
  await page.locator('#agent-status', { hasText: 'started' }).waitFor();
  await page.selectOption('#protocol', String(version));
  await page.click('#initialize');
  await page.locator('#log', { hasText: `initialized (protocol version ${version})` }).waitFor();
  await page.click('#new-session');
  const log = page.locator('#log', { hasText: /session \S+ created/ });
  await log.waitFor();
  // Read from the log line itself: the session menu is filled by the next render.
  return /session (\S+) created/.exec((await log.textContent()) ?? '')![1]!;
}

/**
 * Waits until some element matching `selector` holds `text`, reading the DOM afresh each time:
 * the page re-renders its lists as frames arrive, so element handles do not outlive a render.
 */
export async function waitForText(page: Page, selector: string, text: string): Promise<void> {
  let seen: string[] = [];
  try {
    await expect
      .poll(
        async () => {
          seen = await page.locator(selector).allTextContents();
          return seen.some((t) => t.includes(text));
        },
        { timeout: 20_000 },
      )
      .toBe(true);
  } catch (error) {
    throw new Error(`no ${selector} holds "${text}"; they hold ${JSON.stringify(seen)}`, { cause: error });
  }
}

/** Writes a prompt and sends it. */
export async function prompt(page: Page, text: string): Promise<void> {
  await page.fill('#prompt', text);
  await page.click('#send');
}
