import { authBeforeSession } from './auth-before-session.ts';
import { backgroundWork } from './background-work.ts';
import { branchAndShelve } from './branch-and-shelve.ts';
import { cancellationFlow } from './cancellation-flow.ts';
import { configOptionChange } from './config-option-change.ts';
import { elicitationFlow } from './elicitation-flow.ts';
import { heldPrompt } from './held-prompt.ts';
import { lostResponse } from './lost-response.ts';
import { mcpOverAcp } from './mcp-over-acp.ts';
import { nesSession } from './nes-session.ts';
import { promptLifecycle } from './prompt-lifecycle.ts';
import { proxyChain } from './proxy-chain.ts';
import { rejectedPrompt } from './rejected-prompt.ts';
import { replayAfterRestart } from './replay-after-restart.ts';
import { sessionLifetime } from './session-lifetime.ts';
import { toolCallTerminal } from './tool-call-terminal.ts';
import { subagentDelegation } from './subagent-delegation.ts';
import { twoClients } from './two-clients.ts';
import { versionNegotiation } from './version-negotiation.ts';

export {
  authBeforeSession,
  backgroundWork,
  branchAndShelve,
  cancellationFlow,
  configOptionChange,
  elicitationFlow,
  heldPrompt,
  lostResponse,
  mcpOverAcp,
  nesSession,
  promptLifecycle,
  proxyChain,
  rejectedPrompt,
  replayAfterRestart,
  sessionLifetime,
  subagentDelegation,
  toolCallTerminal,
  twoClients,
  versionNegotiation,
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
  elicitationFlow,
  toolCallTerminal,
  cancellationFlow,
  versionNegotiation,
  backgroundWork,
  branchAndShelve,
  subagentDelegation,
  mcpOverAcp,
  proxyChain,
  nesSession,
] as const;
