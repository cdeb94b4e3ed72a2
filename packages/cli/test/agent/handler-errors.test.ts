import { Connection, createInProcessPair, MemorySessionLog } from '@acp-kit/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createReferenceAgent } from '../../src/agent/reference-agent.js';
import { clientOver } from '../harness.js';

/** A session log whose ID counter is broken, so the reference agent's onPrompt throws. */
class BrokenIdHistory extends MemorySessionLog {
  override async nextMessageId(): Promise<string> {
    throw new Error('the ID counter is gone');
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('reference agent handler errors', () => {
  it('prints an onPrompt exception to stderr while the client gets -32603', async () => {
    let stderr = '';
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stderr += String(chunk);
      return true;
    });
    const agent = createReferenceAgent({ history: new BrokenIdHistory() });
    const [agentSide, clientSide] = createInProcessPair();
    agent.serve(new Connection(agentSide));
    const t = await clientOver(clientSide);
    const sessionId = await t.client.newSession('/work');
    await expect(t.client.prompt(sessionId, [{ type: 'text', text: 'hello' }])).rejects.toMatchObject({
      code: -32603,
    });
    await vi.waitFor(() => expect(stderr).toContain('the ID counter is gone'), { timeout: 10_000 });
    expect(stderr).toContain(`acp-kit agent: onPrompt failed in ${sessionId}`);
    t.client.close();
  });
});
