import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, type AgentSession } from '@acp-kit/sdk';

/**
 * `/build` starts a simulated build in a display terminal, moves it to the background and ends the
 * turn at once; the build keeps writing a line every `stepMs` for `steps` lines, reports its exit
 * status, and then says so with a notice — all outside any turn. Every session opens with a
 * greeting, sent before any prompt. Nothing runs: the output is simulated.
 */
export function createBuildAgent(options: { steps?: number; stepMs?: number } = {}): Agent {
  const steps = options.steps ?? 10;
  const stepMs = options.stepMs ?? 20;
  return new Agent({
    info: { name: 'build-agent', version: '1.0.0' },
    // An agent-initiated message: no prompt, no turn, no state_update.
    async onSessionStarted(session) {
      const hello = await session.agentMessage();
      await hello.replace([{ type: 'text', text: 'Hello! Type /build to start a build.' }]);
    },
    async onPrompt(prompt, { session }) {
      await prompt.insert();
      await session.running();
      const terminal = await session.terminal(
        { command: 'npm run build', cwd: session.cwd },
        { cancellable: true },
      );
      // From here on session/cancel does not stop it; terminal/cancel (or closing the session) does.
      // The SDK lists it in `background` on every state_update until its exit status is reported.
      await terminal.runInBackground();
      const reply = await session.agentMessage();
      await reply.chunk({ type: 'text', text: 'Started the build in the background.' });
      await session.idle('end_turn');
      void build(session, terminal, steps, stepMs);
    },
  });
}

type Terminal = Awaited<ReturnType<AgentSession['terminal']>>;

async function build(
  session: AgentSession,
  terminal: Terminal,
  steps: number,
  stepMs: number,
): Promise<void> {
  for (let step = 1; step <= steps && !terminal.signal.aborted; step++) {
    await terminal.output(`step ${step} of ${steps}\n`);
    await sleep(stepMs, undefined, { signal: terminal.signal }).catch(() => undefined);
  }
  const stopped = terminal.signal.aborted;
  // The exit status comes first; the SDK then drops the terminal from the list (a repeated idle).
  await terminal.exit(stopped ? { exitCode: null, signal: 'SIGTERM' } : { exitCode: 0 });
  await session.notice({ severity: 'info', title: stopped ? 'The build was stopped' : 'The build finished' });
}
