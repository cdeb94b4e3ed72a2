import type { MethodFeature } from '../serving.js';
import { connectionLifecycle } from './connection-lifecycle.js';
import { prompts } from './prompts.js';
import { sessionConfig } from './session-config.js';
import { sessionFork } from './session-fork.js';
import { sessions } from './sessions.js';
import { workRequests } from './work-requests.js';

/**
 * Every method family the agent serves, one feature module each; `Agent.serve` hands each
 * connection's {@link MethodGate} their handlers. A new method goes into its family's module (or a
 * new module listed here), and the gate applies the checks every method gets.
 */
export const AGENT_FEATURES: readonly MethodFeature[] = [
  connectionLifecycle,
  sessions,
  prompts,
  sessionConfig,
  sessionFork,
  workRequests,
];
