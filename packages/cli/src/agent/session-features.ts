import type { AvailableCommand, SessionConfigOption } from '@acp-kit/schema';
import type { AgentSession, ClientPeer } from '@acp-kit/sdk';

/**
 * The reference agent's v2 session features: a `mode` and a `model` configuration option, slash
 * commands, and the commands that exercise tool calls, display terminals, plans, usage, notices,
 * elicitation, titles and plan removal (`/compact`, for compactions, is in `compact-command.ts`). Everything is simulated: `/run` executes nothing.
 */

/** The configuration options every new session starts with. */
export function initialConfigOptions(): SessionConfigOption[] {
  return [
    {
      type: 'select',
      configId: 'mode',
      name: 'Mode',
      category: 'mode',
      currentValue: 'code',
      options: [
        { value: 'code', name: 'Code: /run shows its simulated command' },
        { value: 'ask', name: 'Ask: /run only says what it would run' },
      ],
    },
    {
      type: 'select',
      configId: 'model',
      name: 'Model',
      category: 'model',
      currentValue: 'echo',
      options: [
        { value: 'echo', name: 'Echo: replies once' },
        { value: 'echo-twice', name: 'Echo twice: replies with the sentence twice' },
      ],
    },
  ];
}

/** The slash commands the reference agent offers in a mode (`available_commands_update`). */
export function commandsFor(mode: string, unstable: boolean): AvailableCommand[] {
  const run =
    mode === 'ask'
      ? 'Say which command would run (ask mode)'
      : 'Show a simulated command in a tool call and terminal (nothing runs)';
  return [
    { type: 'command', name: 'run', description: run, input: { type: 'text', hint: 'command line' } },
    ...COMMON_COMMANDS,
    ...(unstable ? UNSTABLE_COMMANDS : []),
  ];
}

const COMMON_COMMANDS: readonly AvailableCommand[] = [
  {
    type: 'command',
    name: 'ask',
    description: 'Ask you a question through an elicitation form',
    input: { type: 'text', hint: 'question' },
  },
  {
    type: 'command',
    name: 'title',
    description: 'Set the session title shown by session/list',
    input: { type: 'text', hint: 'title' },
  },
  {
    type: 'command',
    name: 'note',
    description: 'Keep a note (retained, replayed, never executed again)',
    input: { type: 'text', hint: 'note' },
  },
  { type: 'command', name: 'status', description: 'Show the session status (live-only)' },
  {
    type: 'command',
    name: 'write',
    description: 'Ask for permission before a simulated write',
    input: { type: 'text', hint: 'file' },
  },
  {
    type: 'command',
    name: 'compact',
    description: 'Compact the context: report a summary of the retained messages (a compaction)',
  },
];

/** The slash commands that use upstream's unstable surface (`--unstable` only). */
const UNSTABLE_COMMANDS: readonly AvailableCommand[] = [
  { type: 'command', name: 'unplan', description: 'Remove the plan /run reported (plan_removed, unstable)' },
  {
    type: 'command',
    name: 'plan',
    description: 'Report the text as a Markdown plan (plan_update with markdown content, unstable)',
    input: { type: 'text', hint: 'the plan, as Markdown' },
  },
  {
    type: 'command',
    name: 'subagent',
    description: 'Start a subagent that works on the task in its own session (subagent_update, unstable)',
    input: { type: 'text', hint: 'task' },
  },
  {
    type: 'command',
    name: 'mcp',
    description: 'List or call the tools of MCP servers the client provides over ACP (mcp/message, unstable)',
    input: { type: 'text', hint: '[@serverId] <tool> [json arguments]' },
  },
];

/** The current value of a select option, or `fallback`. */
export function optionValue(
  options: readonly SessionConfigOption[],
  configId: string,
  fallback: string,
): string {
  const option = options.find((o) => o.configId === configId) as { currentValue?: unknown } | undefined;
  return typeof option?.currentValue === 'string' ? option.currentValue : fallback;
}

/** Waits `ms`, or less if `signal` aborts; leaves no listener behind. */
export const pause = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve();
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });

/** The simulated output of `command`: a few deterministic lines, nothing executed. */
export function simulatedOutput(command: string): string[] {
  return [
    `$ ${command}\n`,
    'simulated by acp-kit agent: nothing was executed\n',
    `${command.length} characters\n`,
    'done\n',
  ];
}

/** The plan `/run` reports, and `/unplan` removes. */
const RUN_PLAN_ID = 'plan_run';

/**
 * `/run <command>`: a plan, a cancellable tool call whose content is a display terminal plus a
 * streamed summary, the terminal's output in chunks and its exit status, a notice and usage. In
 * `ask` mode it only says what it would run. Ends the turn.
 */
export async function runCommand(session: AgentSession, command: string, delayMs: number): Promise<void> {
  const signal = session.signal;
  const mode = optionValue(await session.configOptions(), 'mode', 'code');
  if (mode === 'ask') {
    await session.notice({
      severity: 'info',
      title: `ask mode: /run ${command} was not shown (switch mode to code)`,
    });
    const reply = await session.agentMessage();
    await reply.chunk({ type: 'text', text: `In ask mode I would run: ${command}` });
    await session.idle('end_turn');
    return;
  }
  const planId = RUN_PLAN_ID;
  const steps = (first: string, second: string) => ({
    type: 'items' as const,
    planId,
    entries: [
      { content: `Run ${command}`, priority: 'high', status: first },
      { content: 'Report the result', priority: 'medium', status: second },
    ],
  });
  await session.plan(steps('in_progress', 'pending'));
  const call = await session.toolCall(
    { title: `Run: ${command}`, kind: 'execute', status: 'in_progress', rawInput: { command } },
    { cancellable: true },
  );
  const terminal = await session.terminal({ command, cwd: session.cwd }, { cancellable: true });
  await call.content({ type: 'terminal', terminalId: terminal.terminalId });
  const stop = AbortSignal.any([call.signal, terminal.signal]);
  let lines = 0;
  for (const line of simulatedOutput(command)) {
    if (stop.aborted) break;
    await terminal.output(line);
    lines += 1;
    await pause(delayMs, stop);
  }
  const cancelled = stop.aborted;
  await terminal.exit(cancelled ? { exitCode: null, signal: 'SIGTERM' } : { exitCode: 0 });
  await call.content({
    type: 'content',
    content: {
      type: 'text',
      text: cancelled ? `stopped after ${lines} line(s)` : `${lines} line(s) of simulated output`,
    },
  });
  await call.update({
    status: cancelled ? 'failed' : 'completed',
    rawOutput: { exitCode: cancelled ? null : 0 },
  });
  await session.plan(steps(cancelled ? 'failed' : 'completed', 'completed'));
  await session.notice({
    severity: cancelled ? 'warning' : 'info',
    title: cancelled ? 'The simulated command was stopped' : 'Simulated: nothing was executed',
  });
  const reply = await session.agentMessage();
  await reply.chunk({
    type: 'text',
    text: cancelled ? `Stopped ${command}.` : `Ran ${command} (simulated).`,
  });
  await session.usage({ used: 64 + lines * 8, size: 200_000 });
  await session.idle(signal.aborted ? 'cancelled' : 'end_turn');
}

/** `/ask <question>`: asks the client through an elicitation form and replies with the answer. */
export async function askCommand(session: AgentSession, question: string, client: ClientPeer): Promise<void> {
  const answer = await session.elicit(
    {
      mode: 'form',
      message: question || 'What should I do next?',
      requestedSchema: {
        type: 'object',
        properties: { answer: { type: 'string', title: 'Answer', description: question } },
        required: ['answer'],
      },
    },
    { client },
  );
  const reply = await session.agentMessage();
  const content =
    answer.action === 'accept' ? (answer as { content?: { answer?: unknown } | null }).content : undefined;
  const text =
    answer.action === 'accept'
      ? `You answered: ${String(content?.answer ?? '')}`
      : `No answer (${answer.action}).`;
  await reply.chunk({ type: 'text', text });
  await session.idle(session.signal.aborted ? 'cancelled' : 'end_turn');
}

/** `/title <text>`: sets the session title (`session_info_update`, shown by `session/list`). */
export async function titleCommand(session: AgentSession, title: string): Promise<void> {
  await session.setTitle(title.length > 0 ? title : null);
  const reply = await session.agentMessage();
  await reply.chunk({ type: 'text', text: title.length > 0 ? `Title set: ${title}` : 'Title cleared.' });
  await session.idle('end_turn');
}

/** The plan `/plan` reports (and replaces on each `/plan`). */
const NOTES_PLAN_ID = 'plan_notes';

/**
 * `/plan <markdown>`: reports the text as a Markdown plan (`plan_update` whose content has type
 * `markdown`, upstream's unstable surface) under one plan ID, so each `/plan` replaces the last.
 * Ends the turn.
 */
export async function planCommand(session: AgentSession, markdown: string): Promise<void> {
  const content = markdown.length > 0 ? markdown : '(empty plan)';
  await session.update({
    sessionUpdate: 'plan_update',
    plan: { type: 'markdown', planId: NOTES_PLAN_ID, content },
  });
  const reply = await session.agentMessage();
  await reply.chunk({ type: 'text', text: `Plan ${NOTES_PLAN_ID} reported.` });
  await session.idle('end_turn');
}

/** `/unplan`: removes the plan `/run` reported (`plan_removed`, upstream's unstable surface). Ends the turn. */
export async function unplanCommand(session: AgentSession): Promise<void> {
  await session.update({ sessionUpdate: 'plan_removed', planId: RUN_PLAN_ID });
  const reply = await session.agentMessage();
  await reply.chunk({ type: 'text', text: `Plan ${RUN_PLAN_ID} removed.` });
  await session.idle('end_turn');
}
