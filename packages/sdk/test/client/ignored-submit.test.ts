import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/index.js';
import { RpcError } from '../../src/rpc/index.js';
import { wire } from '../agent/harness.js';

const info = { name: 'test-agent', version: '0.0.0' };
const hello = [{ type: 'text' as const, text: 'hello' }] as [{ type: 'text'; text: string }];

/** Collects every unhandled rejection the process sees while a test runs. */
let unhandled: unknown[] = [];
const record = (reason: unknown): void => {
  unhandled.push(reason);
};
beforeEach(() => {
  unhandled = [];
  process.on('unhandledRejection', record);
});
afterEach(() => {
  process.off('unhandledRejection', record);
});

/** Gives the process a few macrotasks to report an unhandled rejection, if one is coming. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 50));

describe('an ignored submit() result', () => {
  it('never produces an unhandled rejection when the agent rejects the prompt; the store marks the entry failed', async () => {
    const w = wire(
      new Agent({
        info,
        onPrompt: (prompt) => prompt.reject(new RpcError(-32602, 'no prompts today')),
      }),
    );
    const sessionId = await w.client.newSession('/work');
    const { localId } = w.client.submit(sessionId, hello);
    await w.until((r) => r.some((m) => m.type === 'response' && m.error !== undefined));
    await settle();
    expect(unhandled).toEqual([]);
    const entry = w.client.store.snapshot(sessionId).messages.find((m) => m.localId === localId);
    expect(entry).toMatchObject({ origin: 'local-failed', error: { code: -32602 } });
  });

  it('never produces an unhandled rejection when the connection closes first; the store marks the outcome unknown', async () => {
    const w = wire(new Agent({ info, onPrompt: () => undefined }));
    const sessionId = await w.client.newSession('/work');
    const { localId } = w.client.submit(sessionId, hello);
    await w.until((r) => r.length > 0);
    w.client.close();
    await settle();
    expect(unhandled).toEqual([]);
    const entry = w.client.store.snapshot(sessionId).messages.find((m) => m.localId === localId);
    expect(entry).toMatchObject({ origin: 'local-unknown' });
  });

  it('still rejects for a caller that awaits it', async () => {
    const w = wire(
      new Agent({ info, onPrompt: (prompt) => prompt.reject(new RpcError(-32602, 'no prompts today')) }),
    );
    const sessionId = await w.client.newSession('/work');
    await expect(w.client.submit(sessionId, hello).messageId).rejects.toMatchObject({ code: -32602 });
  });
});
