import { Agent, type AgentOptions, type AgentSession, type SessionLog } from '@acp-kit/sdk';
import { referenceNes } from './nes-suggestions.js';
import { type TurnContext, runTurn } from './reference-turn.js';
import { commandsFor, initialConfigOptions, optionValue } from './session-features.js';
import { createTurnQueue } from './turn-queue.js';

/** Options for {@link createReferenceAgent}. */
export interface ReferenceAgentOptions {
  /** The session log sessions live in (default: in memory). */
  history?: SessionLog;
  /** Pause between streamed reply chunks, in ms (default 2), so a turn can be cancelled mid-stream. */
  chunkDelayMs?: number;
  /** How replay sends retained messages (default `'chunks'`: reset, then one chunk per block). */
  replay?: 'full' | 'chunks';
  /** Session ownership across replicas (`--history postgres://…`); default none. */
  ownership?: AgentOptions['ownership'];
  /** Require `auth/login` before session methods (`--require-login`); -32000 until then. */
  requireLogin?: boolean;
  /** Send an agent message on every `session/new`, before any prompt (`--greet`). */
  greet?: boolean;
  /** Where errors thrown by the agent's handlers go (default: one line each on stderr). */
  onHandlerError?: AgentOptions['onHandlerError'];
  /**
   * Serve upstream's unstable surface (`--unstable`): `session/fork`, `session/set_title`,
   * `session/status`, `session/archive`/`unarchive`, `auth/status`, `providers/*`, system prompts,
   * and the `/plan`, `/unplan` and `/subagent` commands. Without it the agent is stable-only: none
   * of that is advertised, the methods answer -32601 and the commands are not offered.
   */
  unstable?: boolean;
}

/** A notification the agent's gate dropped (before initialize or a required login), on stderr. */
const printRefusedNotification: NonNullable<AgentOptions['onRefusedNotification']> = ({
  method,
  client,
  error,
}) => {
  process.stderr.write(`acp-kit agent: dropped ${method} from ${client}: ${error.message} (${error.code})\n`);
};

/** The default diagnostic hook: the error the client only sees as -32603, on stderr. */
const printHandlerError: NonNullable<AgentOptions['onHandlerError']> = (error, { handler, sessionId }) => {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`acp-kit agent: ${handler} failed in ${sessionId}: ${detail}\n`);
};

/**
 * Where a real agent would send its model requests (the offline model sends none), with
 * `--unstable`: clients may re-route them with providers/set, and /status reports the main
 * provider's route.
 */
const REFERENCE_PROVIDERS: NonNullable<AgentOptions['providers']> = [
  {
    providerId: 'main',
    supported: ['anthropic', 'openai'],
    required: true,
    initial: { apiType: 'anthropic', baseUrl: 'https://api.anthropic.com', headers: {} },
  },
  { providerId: 'embeddings', supported: ['openai'] },
];

/**
 * The reference agent behind `acp-kit agent`: ACP v2 with a deterministic offline model.
 *
 * - A prompt gets its ID reserved on arrival but is inserted (and answered) only when the session
 *   is free: a prompt that arrives while a turn runs is held, its response waiting, until the turn ends.
 * - Replies stream as `agent_message_chunk`s between `running` and `idle`/`end_turn` (with usage).
 * - `/status` is a live-only local command: inserted with `retain: false`, answered, never replayed;
 *   with `unstable` it also reports the session's system prompt (append and override taken) and
 *   where the `main` provider routes (`providers/set`; nothing is sent anywhere).
 * - `/note <text>` is a retained local command: replayed later under its ID, never executed again.
 * - A prompt starting with `/write` asks `session/request_permission` first (`requires_action`).
 * - `session/cancel` stops the stream and ends the turn with `idle`/`cancelled`.
 * - v2 session features: `mode` and `model` configuration options (`session/set_config_option`,
 *   `config_option_update`); slash commands (`available_commands_update` at a session's first turn
 *   and when the mode changes); `/run <cmd>` (a plan, a cancellable tool call with a display
 *   terminal streaming simulated output — nothing executes), `/ask <question>` (an elicitation),
 *   `/title <text>` (`session_info_update`), `/compact` (a compaction whose summary is derived from
 *   the session's retained messages), `/background <seconds>` (a terminal that keeps writing
 *   after the turn ended idle, listed in `background` until its exit status) and `/subtask <text>`
 *   (the same as a background tool call); `session/list`, `session/close`, `session/delete`;
 *   with `requireLogin`, `auth/login` first.
 * - With `unstable` (`--unstable`), upstream's unstable surface: `session/fork`,
 *   `session/set_title`, `session/status`, `session/archive`/`unarchive`, `auth/status`,
 *   `providers/*`, system prompts, and the commands `/unplan` (`plan_removed`), `/plan <markdown>`
 *   (a Markdown plan), `/subagent <task>` (a cancellable child session reporting its own turn,
 *   announced with `subagent_update`) and `/mcp [tool [json]]` (lists or calls the tools of MCP
 *   servers the client provides over ACP, `mcp/message`), and next edit suggestions (`nes/*`,
 *   `document/*`: see {@link referenceNes}).
 */
export function createReferenceAgent(options: ReferenceAgentOptions = {}): Agent {
  const notes = new Map<string, string[]>();
  /** Sessions whose commands were announced in this process. */
  const announced = new Set<string>();
  const delay = options.chunkDelayMs ?? 2;
  const unstable = options.unstable ?? false;
  const reportError = options.onHandlerError ?? printHandlerError;
  // `context` names the agent below; turns run only once prompts arrive, after it exists.
  const turns = createTurnQueue((session, queued) => runTurn(context, session, queued), reportError);

  const agent = new Agent({
    info: { name: 'acp-kit-agent', title: 'acp-kit reference agent', version: '0.1.0' },
    replay: options.replay ?? 'chunks',
    ...(options.history ? { history: options.history } : {}),
    ...(options.ownership ? { ownership: options.ownership } : {}),
    onHandlerError: reportError,
    onRefusedNotification: printRefusedNotification,
    unstable,
    capabilities: unstable
      ? {
          auth: { status: {} },
          session: {
            archive: {},
            delete: {},
            fork: {},
            status: {},
            title: {},
            systemPrompt: { mode: { override: {} } },
          },
        }
      : { session: { delete: {} } },
    ...(options.requireLogin
      ? {
          auth: {
            methods: [{ type: 'agent', methodId: 'reference', name: 'Reference login (accepts anyone)' }],
            required: true,
          },
        }
      : {}),
    ...(unstable ? { providers: REFERENCE_PROVIDERS } : {}),
    // MCP over ACP (unstable): MCP servers the client provides over this connection, used by /mcp.
    ...(unstable ? { mcpOverAcp: true } : {}),
    // Next edit suggestions (unstable): deterministic rename, completion and jump suggestions.
    ...(unstable ? { nes: referenceNes() } : {}),
    onNewSession: () => ({
      configOptions: initialConfigOptions(),
      availableCommands: commandsFor('code', unstable),
    }),
    async setConfigOption(request, { session, current, builtIn }) {
      const next = builtIn(request, current);
      // Changing the mode changes what /run does: say so with the commands list.
      if (request.configId === 'mode') {
        await session.setAvailableCommands(commandsFor(optionValue(next, 'mode', 'code'), unstable));
      }
      return next;
    },
    ...(options.greet
      ? {
          async onSessionStarted(session: AgentSession) {
            const hello = await session.agentMessage();
            await hello.replace([{ type: 'text', text: 'Hello! I am the acp-kit reference agent.' }]);
          },
        }
      : {}),
    onCloseSession(session) {
      turns.forget(session.id);
      announced.delete(session.id);
    },
    async onPrompt(prompt, { session, client }) {
      // The ID is assigned on arrival, for the agent's own bookkeeping of queued prompts; the
      // client learns it only when the prompt is inserted (RFD: an ID assigned in advance is not
      // by itself evidence of insertion).
      const messageId = await session.reserveMessageId();
      turns.push(session, { prompt, client, messageId });
    },
  });
  const context: TurnContext = { agent, notes, announced, unstable, delay };
  return agent;
}
