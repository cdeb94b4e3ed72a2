import type {
  AgentAuthCapabilities,
  AgentCapabilities,
  McpCapabilities,
  SessionCapabilities,
} from '@acp-kit/schema';

/**
 * Agent capabilities without upstream's unstable ones (see `UNSTABLE_AGENT_CAPABILITIES`):
 * `session.fork`, `session.title`, `session.status`, `session.archive`, `session.systemPrompt`,
 * `session.mcp.acp`, `auth.status`, `providers`, `nes` and `positionEncoding` may only be absent
 * or `null`.
 */
export interface StableAgentCapabilities
  extends Omit<AgentCapabilities, 'session' | 'auth' | 'providers' | 'nes' | 'positionEncoding'> {
  session?:
    | (Omit<SessionCapabilities, 'fork' | 'title' | 'status' | 'archive' | 'systemPrompt' | 'mcp'> & {
        fork?: null;
        title?: null;
        status?: null;
        archive?: null;
        systemPrompt?: null;
        mcp?: (Omit<McpCapabilities, 'acp'> & { acp?: null }) | null;
      })
    | null;
  auth?: (Omit<AgentAuthCapabilities, 'status'> & { status?: null }) | null;
  providers?: null;
  nes?: null;
  positionEncoding?: null;
}

/**
 * What an agent that did not opt in to the unstable surface may not be given, at the type level:
 * an unstable capability, `providers`, `mcpOverAcp` or `nes`. The `Agent` constructor adds it to its
 * options when `unstable` is absent or the literal `false`, so registering an unstable method
 * without opting in fails to compile (and, as before, throws at run time).
 */
export interface StableOnly {
  capabilities?: StableAgentCapabilities;
  providers?: undefined;
  mcpOverAcp?: undefined;
  nes?: undefined;
}

/** {@link StableOnly} when `U` (the type of `options.unstable`) is `false`; nothing otherwise. */
export type StableIf<U extends boolean> = [U] extends [false] ? StableOnly : unknown;
