import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, type AgentSession } from '@acp-kit/sdk';

/**
 * `/run <command>` reports a tool call whose content is a display terminal, and streams the
 * command's output into it. Nothing runs: the output is simulated (`tail -f` goes on until stopped).
 */
export function createRunnerAgent(): Agent {
  return new Agent({
    info: { name: 'runner-agent', version: '1.0.0' },
    async onPrompt(prompt, { session }) {
      await prompt.insert();
      const first = prompt.content[0];
      const text = first?.type === 'text' && typeof first.text === 'string' ? first.text : '';
      void run(session, text.replace(/^\/run\s+/, ''));
    },
  });
}

async function run(session: AgentSession, command: string): Promise<void> {
  await session.running();
  // The first tool_call_update creates the tool call; `cancellable` advertises
  // capabilities.cancel, so a client may stop it alone with tool_call/cancel.
  const call = await session.toolCall(
    { title: `Run ${command}`, kind: 'execute', status: 'in_progress' },
    { cancellable: true },
  );
  const terminal = await session.terminal({ command, cwd: session.cwd }, { cancellable: true });
  await call.content({ type: 'terminal', terminalId: terminal.terminalId });
  // Aborted by terminal/cancel, tool_call/cancel (through the call) or session/cancel.
  const stop = AbortSignal.any([call.signal, terminal.signal]);
  for await (const line of simulate(command, stop)) await terminal.output(line);
  if (stop.aborted) {
    await terminal.exit({ signal: 'SIGTERM' });
    await call.update({ status: 'cancelled' });
  } else {
    await terminal.exit({ exitCode: 0 });
    await call.content({ type: 'content', content: { type: 'text', text: 'All tests passed.' } });
    await call.update({ status: 'completed' });
  }
  // Cancelling one tool call or terminal does not end the turn; session/cancel does.
  await session.idle(session.signal.aborted ? 'cancelled' : 'end_turn');
}

/** Simulated output: `npm test` prints three lines, `tail -f …` a line every 10 ms until stopped. */
async function* simulate(command: string, signal: AbortSignal): AsyncGenerator<string> {
  const follow = command.startsWith('tail -f');
  const lines = follow ? [] : ['> test\n', 'running 3 tests\n', 'ok 3/3\n'];
  for (let i = 1; follow || lines.length > 0; i++) {
    if (signal.aborted) return;
    yield lines.shift() ?? `line ${i}\n`;
    if (follow) await sleep(10, undefined, { signal }).catch(() => undefined);
  }
}
