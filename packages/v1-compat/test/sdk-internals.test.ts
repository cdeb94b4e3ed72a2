import { AgentSession, MemoryHistoryStore, PendingPrompt, RpcError } from '@acp-kit/sdk';
import { describe, expect, it } from 'vitest';
import {
  AGENT_SESSION_INTERNALS,
  newAgentSession,
  newPendingPrompt,
  sessionInternals,
} from '../src/v1-agent-as-v2/sdk-internals.js';

describe('the SDK internals the v1 → v2 bridge builds on', () => {
  it('still exist on the SDK classes, although its published declarations leave them out', async () => {
    const store = new MemoryHistoryStore();
    await store.log.createSession({ sessionId: 'sess_internals', cwd: '/work' });
    const session = newAgentSession('sess_internals', '/work', store);
    expect(session).toBeInstanceOf(AgentSession);
    expect(session.id).toBe('sess_internals');
    const internals = sessionInternals(session) as unknown as Record<string, unknown>;
    for (const name of AGENT_SESSION_INTERNALS)
      expect([name, typeof internals[name]]).toEqual([name, 'function']);

    const controller = new AbortController();
    const prompt = newPendingPrompt(
      'sess_internals',
      [{ type: 'text', text: 'hi' }],
      controller.signal,
      session,
    );
    expect(prompt).toBeInstanceOf(PendingPrompt);
    expect(prompt.response).toBeInstanceOf(Promise);
    prompt.reject(new RpcError(-32603, 'not this time'));
    await expect(prompt.response).rejects.toThrow();
  });
});
