import type { BridgeFeature } from './index.js';

/**
 * Prompt turns: `session/prompt` is answered by the SDK's adapter seam on evidence of insertion
 * (the client is attached first) and submitted to the v1 agent behind it; `session/cancel`
 * cancels the v1 turn. The subagent guard (see `V1AgentBridge.serve`) runs before both.
 */
export const prompts: BridgeFeature = (bridge) => ({
  'session/prompt': (params, context, link) => {
    const session = bridge.require(params.sessionId);
    link.attach(session);
    const { prompt, response } = session.adapter.receivePrompt(params.prompt, {
      client: link.peer,
      signal: context.signal,
    });
    session.submit(prompt, link.peer);
    return response;
  },

  'session/cancel': async (params) => {
    await bridge.sessions.get(params.sessionId)?.cancel();
  },
});
