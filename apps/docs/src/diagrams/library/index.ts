import { authBeforeSession } from './auth-before-session.ts';
import { configOptionChange } from './config-option-change.ts';
import { heldPrompt } from './held-prompt.ts';
import { lostResponse } from './lost-response.ts';
import { promptLifecycle } from './prompt-lifecycle.ts';
import { rejectedPrompt } from './rejected-prompt.ts';
import { replayAfterRestart } from './replay-after-restart.ts';
import { sessionLifetime } from './session-lifetime.ts';
import { twoClients } from './two-clients.ts';

export {
  authBeforeSession,
  configOptionChange,
  heldPrompt,
  lostResponse,
  promptLifecycle,
  rejectedPrompt,
  replayAfterRestart,
  sessionLifetime,
  twoClients,
};

/** Every diagram the guides use, so tests can render them all without visiting pages. */
export const allDiagrams = [
  promptLifecycle,
  rejectedPrompt,
  heldPrompt,
  twoClients,
  replayAfterRestart,
  lostResponse,
  sessionLifetime,
  authBeforeSession,
  configOptionChange,
] as const;
