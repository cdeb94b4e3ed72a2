import { referenceNes } from './nes-suggestions.js';
import {
  Agent,
  type AgentOptions,
  type AgentSession,
  type ClientPeer,
  type PendingPrompt,
  type SessionLog,
} from '@acp-kit/sdk';
import { backgroundCommand, subtaskCommand } from './background-command.js';
import { compactCommand } from './compact-command.js';
import { mcpCommand } from './mcp-command.js';
import { subagentCommand } from './subagent-command.js';
import { promptText, replyTo } from './reply-model.js';
import {
  askCommand,
  commandsFor,
  initialConfigOptions,
  optionValue,
  pause as sleep,
  runCommand,
  titleCommand,
  planCommand,
  unplanCommand,
} from './session-features.js';

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

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

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

interface Queued {
  prompt: PendingPrompt;
  client: ClientPeer;
  /** The ID reserved when the prompt was queued; holding it is not insertion. */
  messageId: string;
}

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
  const queues = new Map<string, Queued[]>();
  const busy = new Set<string>();
  const notes = new Map<string, string[]>();
  /** Sessions whose commands were announced in this process. */
  const announced = new Set<string>();
  const delay = options.chunkDelayMs ?? 2;
  const unstable = options.unstable ?? false;
  const reportError = options.onHandlerError ?? printHandlerError;

  const drain = async (session: AgentSession): Promise<void> => {
    if (busy.has(session.id)) return;
    busy.add(session.id);
    try {
      const queue = queues.get(session.id) ?? [];
      for (let next = queue.shift(); next; next = queue.shift()) {
        if (next.prompt.state !== 'pending') continue;
        try {
          await runTurn(session, next);
        } catch (error) {
          // The turn failed (a client answered a permission request with an error, a report could
          // not be sent…): answer what is still unanswered, and end an inserted prompt's turn with
          // stop reason `error` and what failed — never idle without a stop reason.
          if (next.prompt.state === 'pending') {
            next.prompt.reject({ code: -32603, message: 'Internal error' });
            continue;
          }
          // Both failures go to stderr: the turn's, and the idle's if it could not be written either
          // (the history is unreachable: with PostgreSQL the replica writes the idle once it is back).
          reportError(error, { handler: 'onPrompt', sessionId: session.id });
          const failure = error as { code?: unknown; message?: unknown };
          await session
            .idle('error', undefined, {
              code: typeof failure?.code === 'number' ? failure.code : -32603,
              message: typeof failure?.message === 'string' ? failure.message : 'Internal error',
            })
            .catch((idleError: unknown) =>
              reportError(
                new Error(`the turn's idle/error could not be written: ${messageOf(idleError)}`, {
                  cause: idleError,
                }),
                { handler: 'onPrompt', sessionId: session.id },
              ),
            );
        }
      }
    } finally {
      busy.delete(session.id);
    }
  };

  const runTurn = async (session: AgentSession, { prompt, client, messageId }: Queued): Promise<void> => {
    const text = promptText(prompt.content);
    if (text === '/status') {
      await prompt.insert({ retain: false, messageId });
      await session.running();
      const reply = await session.agentMessage({ retain: false });
      const noteCount = notes.get(session.id)?.length ?? 0;
      // System prompts and providers are unstable: a stable-only agent reports neither.
      let unstableParts = '';
      if (unstable) {
        const systemPrompt = await session.systemPrompt();
        const main = agent.providers?.route('main');
        const routed = main ? `, model requests to ${main.apiType} at ${main.baseUrl}` : '';
        const instructions =
          systemPrompt === null
            ? 'no system prompt'
            : `system prompt: ${systemPrompt.mode}, ${promptText(systemPrompt.content).length} character(s)`;
        unstableParts = `, ${instructions}${routed}`;
      }
      await reply.chunk({
        type: 'text',
        text: `Session ${session.id}: ${noteCount} note(s), ${session.attachedCount} client(s) attached${unstableParts}.`,
      });
      await session.idle('end_turn');
      return;
    }
    if (text.startsWith('/note ')) {
      await prompt.insert({ messageId });
      await session.running();
      const list = notes.get(session.id) ?? [];
      list.push(text.slice('/note '.length));
      notes.set(session.id, list);
      const reply = await session.agentMessage();
      await reply.chunk({ type: 'text', text: `Noted (${list.length}).` });
      await session.idle('end_turn');
      return;
    }
    await prompt.insert({ messageId });
    await session.running();
    if (!announced.has(session.id)) {
      announced.add(session.id);
      await session.setAvailableCommands(
        commandsFor(optionValue(await session.configOptions(), 'mode', 'code'), unstable),
      );
    }
    const signal = session.signal;
    if (text === '/run' || text.startsWith('/run ')) return runCommand(session, text.slice(5).trim(), delay);
    if (text === '/ask' || text.startsWith('/ask ')) return askCommand(session, text.slice(5).trim(), client);
    if (text === '/title' || text.startsWith('/title ')) return titleCommand(session, text.slice(7).trim());
    if (text === '/compact') return compactCommand(session, messageId, delay);
    if (unstable && text === '/unplan') return unplanCommand(session);
    if (unstable && (text === '/plan' || text.startsWith('/plan ')))
      return planCommand(session, text.slice(6).trim());
    if (text === '/background' || text.startsWith('/background '))
      return backgroundCommand(session, text.slice(12).trim());
    if (unstable && (text === '/subagent' || text.startsWith('/subagent ')))
      return subagentCommand(session, text.slice(10).trim(), signal);
    if ((text === '/mcp' || text.startsWith('/mcp ')) && agent.mcp)
      return mcpCommand(session, text.slice(5).trim(), client, agent.mcp);
    if (text === '/subtask' || text.startsWith('/subtask '))
      return subtaskCommand(session, text.slice(9).trim());
    if (text.startsWith('/write')) {
      const answer = await session.requestPermission(
        {
          title: `Allow: ${text}`,
          options: [
            { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
            { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
          ],
        },
        client,
      );
      const allowed =
        answer.outcome.outcome === 'selected' &&
        'optionId' in answer.outcome &&
        answer.outcome.optionId === 'allow';
      // Withdrawn by session/cancel, or answered `cancelled` by the client: the turn is cancelled.
      if (signal.aborted || answer.outcome.outcome === 'cancelled') {
        await session.idle('cancelled');
        return;
      }
      const reply = await session.agentMessage();
      await reply.chunk({
        type: 'text',
        text: allowed ? 'Permission granted: done.' : 'Permission refused: nothing written.',
      });
      await session.idle('end_turn');
      return;
    }
    const model = optionValue(await session.configOptions(), 'model', 'echo');
    const { pieces, inputTokens, outputTokens } = replyTo(text, model === 'echo-twice' ? 2 : 1);
    const reply = await session.agentMessage();
    let sent = 0;
    for (const piece of pieces) {
      if (signal.aborted) break;
      await reply.chunk({ type: 'text', text: piece });
      sent += 1;
      await sleep(delay, signal);
    }
    const usage = { totalTokens: inputTokens + sent, inputTokens, outputTokens: sent };
    await session.idle(signal.aborted || sent < outputTokens ? 'cancelled' : 'end_turn', usage);
  };

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
      queues.delete(session.id);
      announced.delete(session.id);
    },
    async onPrompt(prompt, { session, client }) {
      // The ID is assigned on arrival, for the agent's own bookkeeping of queued prompts; the
      // client learns it only when the prompt is inserted (RFD: an ID assigned in advance is not
      // by itself evidence of insertion).
      const messageId = await session.reserveMessageId();
      const queue = queues.get(session.id) ?? [];
      queue.push({ prompt, client, messageId });
      queues.set(session.id, queue);
      void drain(session);
    },
  });
  return agent;
}
