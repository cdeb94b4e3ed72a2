import type { AgentSession } from '@acp-kit/sdk';
import { pause } from './session-features.js';

/** How often a background task reports progress, in ms. */
const TICK_MS = 200;

/**
 * `/background <seconds>`: opens a display terminal, moves it to the background and ends the turn
 * `idle`/`end_turn` at once; the terminal keeps writing simulated output for `seconds` (a
 * `session/cancel` does not stop it, `terminal/cancel` does), then reports its exit status, and
 * only then does the SDK drop it from the `background` list (a repeated idle).
 */
export async function backgroundCommand(session: AgentSession, argument: string): Promise<void> {
  const seconds = Math.min(Math.max(Number.parseFloat(argument) || 1, 0), 600);
  const command = `sleep ${seconds}`;
  const terminal = await session.terminal({ command, cwd: session.cwd }, { cancellable: true });
  await terminal.runInBackground();
  const reply = await session.agentMessage();
  await reply.chunk({ type: 'text', text: `Started ${command} in the background.` });
  await session.idle('end_turn');
  void (async () => {
    const until = Date.now() + seconds * 1000;
    let tick = 0;
    while (Date.now() < until && !terminal.signal.aborted) {
      await terminal.output(`tick ${++tick}\n`);
      await pause(Math.min(TICK_MS, Math.max(until - Date.now(), 0)), terminal.signal);
    }
    await terminal.exit(terminal.signal.aborted ? { exitCode: null, signal: 'SIGTERM' } : { exitCode: 0 });
  })().catch(() => undefined);
}

/**
 * `/subtask <text>`: the same as a background tool call — reported `in_progress`, moved to the
 * background, the turn ends; the tool call streams a few content chunks and ends `completed`
 * (or `cancelled` by `tool_call/cancel`) before it leaves the list.
 */
export async function subtaskCommand(session: AgentSession, text: string): Promise<void> {
  const call = await session.toolCall(
    { title: `Subtask: ${text}`, kind: 'think', status: 'in_progress' },
    { cancellable: true },
  );
  await call.runInBackground();
  const reply = await session.agentMessage();
  await reply.chunk({ type: 'text', text: `Working on "${text}" in the background.` });
  await session.idle('end_turn');
  void (async () => {
    for (let step = 1; step <= 3 && !call.signal.aborted; step++) {
      await pause(TICK_MS, call.signal);
      if (call.signal.aborted) break;
      await call.content({ type: 'content', content: { type: 'text', text: `step ${step} of "${text}"\n` } });
    }
    await call.update({ status: call.signal.aborted ? 'cancelled' : 'completed' });
  })().catch(() => undefined);
}
