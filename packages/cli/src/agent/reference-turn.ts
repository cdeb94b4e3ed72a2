import type { Agent, AgentSession } from '@acp-kit/sdk';
import { backgroundCommand, subtaskCommand } from './background-command.js';
import { compactCommand } from './compact-command.js';
import { noteCommand, statusCommand } from './local-commands.js';
import { mcpCommand } from './mcp-command.js';
import { promptText } from './reply-model.js';
import {
  askCommand,
  commandsFor,
  optionValue,
  planCommand,
  runCommand,
  titleCommand,
  unplanCommand,
} from './session-features.js';
import { streamedReply } from './streamed-reply.js';
import { subagentCommand } from './subagent-command.js';
import type { Queued } from './turn-queue.js';
import { writeCommand } from './write-command.js';

/** What the reference agent's turns share across sessions. */
export interface TurnContext {
  /** The agent the turns run in (its providers and MCP-over-ACP). */
  readonly agent: Agent;
  /** The `/note`s of each session, in order. */
  readonly notes: Map<string, string[]>;
  /** Sessions whose commands were announced in this process. */
  readonly announced: Set<string>;
  /** Whether upstream's unstable surface (and its commands) is served. */
  readonly unstable: boolean;
  /** Pause between streamed reply chunks, in ms. */
  readonly delay: number;
}

/**
 * One turn of the reference agent: the local commands (`/status`, `/note`), else the prompt is
 * inserted, the commands are announced at the session's first turn, and the slash command the
 * text names runs — or, for plain text, the offline model streams its reply.
 */
export async function runTurn(
  context: TurnContext,
  session: AgentSession,
  { prompt, client, messageId }: Queued,
): Promise<void> {
  const { agent, announced, unstable, delay } = context;
  const text = promptText(prompt.content);
  if (text === '/status') return statusCommand(session, prompt, messageId, context);
  if (text.startsWith('/note ')) return noteCommand(session, prompt, messageId, text, context.notes);
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
  if (text.startsWith('/write')) return writeCommand(session, text, client, signal);
  return streamedReply(session, text, delay, signal);
}
