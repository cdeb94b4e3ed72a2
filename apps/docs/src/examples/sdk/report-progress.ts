import { Agent, type AgentSession } from '@acp-kit/sdk';

/** An agent that reports more than messages: commands, a title, a plan, context usage and a notice. */
export function createPlanningAgent(): Agent {
  return new Agent({
    info: { name: 'planning-agent', version: '1.0.0' },
    // Sent in the session/new response, kept with the session, returned again on resume.
    onNewSession: () => ({
      availableCommands: [{ type: 'command', name: 'review', description: 'Review the current changes' }],
    }),
    async onPrompt(prompt, { session }) {
      await prompt.insert();
      void plan(session);
    },
  });
}

async function plan(session: AgentSession): Promise<void> {
  await session.running();
  // session/list shows the title; attached clients get a session_info_update.
  await session.setTitle('Add the login tests');
  // plan_update: the whole plan, replaced by the next update with the same planId.
  const entries = ['Write the tests', 'Run them'];
  for (const [done, current] of [
    [0, 0],
    [1, 1],
  ] as const) {
    await session.plan({
      type: 'items',
      planId: 'plan_1',
      entries: entries.map((content, i) => ({
        content,
        priority: 'medium',
        status: i < done ? 'completed' : i === current ? 'in_progress' : 'pending',
      })),
    });
  }
  await session.usage({ used: 53_000, size: 200_000 });
  await session.notice({
    severity: 'warning',
    title: 'Rate limited',
    description: 'Retrying in 30 seconds.',
  });
  // The commands can change while the session lives.
  await session.setAvailableCommands([
    { type: 'command', name: 'review', description: 'Review the current changes' },
    { type: 'command', name: 'test', description: 'Run the tests' },
  ]);
  await session.idle('end_turn');
}
