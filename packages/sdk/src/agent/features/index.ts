import type { MethodFeature } from '../connection/serving.js';
import { connectionLifecycle } from './connection-lifecycle.js';
import { mcpOverAcp } from './mcp-over-acp.js';
import { nes } from './nes.js';
import { prompts } from './prompts.js';
import { providers } from './providers.js';
import { sessionArchive } from './session-archive.js';
import { sessionConfig } from './session-config.js';
import { sessionFork } from './session-fork.js';
import { sessionStatus } from './session-status.js';
import { sessions } from './sessions.js';
import { workRequests } from './work-requests.js';

/**
 * Every method family the agent serves, one feature module each; the agent builds its method
 * table from them once and every connection it serves shares it. A new method goes into its
 * family's module (or a new module listed here), and the table applies the checks every method
 * gets.
 */
export const AGENT_FEATURES: readonly MethodFeature[] = [
  connectionLifecycle,
  sessions,
  prompts,
  sessionConfig,
  sessionFork,
  sessionStatus,
  sessionArchive,
  workRequests,
  providers,
  mcpOverAcp,
  nes,
];
