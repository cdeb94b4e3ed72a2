import { heldPrompt } from './held-prompt.ts';
import { lostResponse } from './lost-response.ts';
import { promptLifecycle } from './prompt-lifecycle.ts';
import { rejectedPrompt } from './rejected-prompt.ts';
import { replayAfterRestart } from './replay-after-restart.ts';
import { twoClients } from './two-clients.ts';

export { heldPrompt, lostResponse, promptLifecycle, rejectedPrompt, replayAfterRestart, twoClients };

/** Every diagram the guides use, so tests can render them all without visiting pages. */
export const allDiagrams = [
  promptLifecycle,
  rejectedPrompt,
  heldPrompt,
  twoClients,
  replayAfterRestart,
  lostResponse,
] as const;
