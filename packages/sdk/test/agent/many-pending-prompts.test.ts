import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { PendingPrompt } from '../../src/agent/index.js';
import { waitFor, wire } from './harness.js';

describe('many prompts pending on one session', () => {
  it('raises no MaxListenersExceededWarning with twenty prompts waiting for insertion, and leaves no listener behind', async () => {
    const waiting: PendingPrompt[] = [];
    const w = wire({
      info: { name: 'slow-inserter', version: '0' },
      onPrompt(prompt) {
        waiting.push(prompt);
      },
    });
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const sessionId = await w.client.newSession('/work');
      const session = (await w.agent.session(sessionId))!;
      const receipts = Array.from({ length: 20 }, (_, i) =>
        w.client.prompt(sessionId, [{ type: 'text', text: `prompt ${i}` }]),
      );
      await waitFor(() => waiting.length === 20);
      for (const prompt of waiting) await prompt.insert();
      await Promise.all(receipts);
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
      expect(getEventListeners(session.closed, 'abort')).toHaveLength(0);
    } finally {
      process.off('warning', onWarning);
      w.client.close();
    }
  });
});
