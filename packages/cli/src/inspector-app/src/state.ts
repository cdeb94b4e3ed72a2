import { ConversationStore } from '@acp-kit/sdk/client';
import { V1ConversationTranslator } from '@acp-kit/v1-compat/browser';
import type { Ask } from './asks-view.js';
import { freshNes, type NesState } from './nes-view.js';
import type { SecondClient } from './second-client.js';
import { Traffic } from './traffic.js';

/** The agent process (or remote connection) as the page last heard of it. */
export type AgentPhase =
  | { phase: 'waiting' }
  | { phase: 'running'; run: number; description: string; target: 'stdio' | 'remote' }
  | { phase: 'ended'; run: number; reason: string; code: number | null };

/**
 * Everything the inspector page knows, in one object: the render functions read it, the event
 * handlers change it and ask for a render. Nothing of it lives in module-level variables, so the
 * page's modules import without side effects and a test can build a state of its own.
 */
export interface InspectorState {
  /** Every frame of the first client's connection, validated and linted. */
  traffic: Traffic;
  /** The conversation as the SDK's store sees it (unstable kinds included). */
  store: ConversationStore;
  /** The sessions the page knows, in the order it learned them. */
  sessions: string[];
  /** While a replay check runs: the session it resumes, and the fresh store its replay fills. */
  replayCheck: { sessionId: string; store: ConversationStore } | undefined;
  /** An imported transcript is shown; the live events are not applied (Back to live reloads). */
  offline: boolean;
  /** The page initialized as v1: its traffic read into the v2 updates the store takes. */
  v1Conversation: V1ConversationTranslator;
  /** The agent's requests waiting for the user, by JSON-RPC id as JSON. */
  asks: Map<string, { ask: Ask; reject: (error: Error) => void }>;
  /** Catching up with the inspector's log: the agent's requests are held, not answered twice. */
  replaying: boolean;
  /** Requests held while replaying, by id as JSON. */
  held: Map<string, unknown>;
  /** The agent's stderr of the current run (bounded). */
  stderr: string;
  agent: AgentPhase;
  /** The initialize in force on this run: its version and capabilities (as JSON), once answered. */
  initialized: { version: 1 | 2; capabilities: string } | undefined;
  /** Initialize requests sent (by any tab) and not answered yet, by id as JSON: their capabilities. */
  initializing: Map<string, { version: 1 | 2; capabilities: string }>;
  /** Traffic rows shown whole rather than clipped, by row index. */
  expanded: Set<number>;
  /** The extra clients (a remote agent's extra connections), by connection number. */
  seconds: Map<number, SecondClient>;
  /** The NES panel: whether the agent offers next edit suggestions, and the editor's NES session. */
  nes: NesState;
}

/** A fresh ConversationStore that asks for a render on every change. */
export function freshStore(onChange: () => void): ConversationStore {
  const created = new ConversationStore({ unstable: true });
  created.subscribe(() => onChange());
  return created;
}

/** The state of a page that has heard nothing yet. */
export function createState(onChange: () => void): InspectorState {
  return {
    traffic: new Traffic(onChange),
    store: freshStore(onChange),
    sessions: [],
    replayCheck: undefined,
    offline: false,
    v1Conversation: new V1ConversationTranslator(),
    asks: new Map(),
    replaying: true,
    held: new Map(),
    stderr: '',
    agent: { phase: 'waiting' },
    initialized: undefined,
    initializing: new Map(),
    expanded: new Set(),
    seconds: new Map(),
    nes: freshNes(),
  };
}

/** Whether the agent's current run is alive (a frame for a dead agent is refused, not sent). */
export function agentRunning(state: InspectorState): boolean {
  return state.agent.phase === 'running';
}

/** The capabilities JSON as the page compares it (parsed and written again, so spacing does not count). */
export function canonicalCapabilities(value: unknown): string {
  return JSON.stringify(value ?? {});
}
