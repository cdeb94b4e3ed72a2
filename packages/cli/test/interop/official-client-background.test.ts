/**
 * #30 item 6: the official SDK's experimental v2 client (`@agentclientprotocol/sdk/experimental/v2`)
 * sees the background list and the out-of-turn updates of the real `acp-kit agent --greet` process
 * as the schema says: the greeting before any prompt and before any state update; `/background 1`
 * ending its turn `idle`/`end_turn` with the terminal listed (announced first); the terminal's
 * output after that idle; its exit status before the repeated idle (no stop reason) that drops it;
 * the official session's `background` following each list. Every notification on the wire parses
 * with the official SDK's own zod schema.
 */
import {
  type ActiveSessionMessage,
  client as officialClient,
} from '@agentclientprotocol/sdk/experimental/v2';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { requireBuild } from '../harness.js';
import {
  type AgentProcess,
  OFFICIAL_INITIALIZE,
  officialSchemas,
  spawnAgentProcess,
} from './agent-process.js';

beforeAll(requireBuild);
let running: AgentProcess | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

type Update = ActiveSessionMessage['update'] & {
  background?: unknown[] | null;
  stopReason?: unknown;
  exitStatus?: unknown;
  terminalId?: string;
};

describe('the official v2 client and acp-kit agent background work and agent-initiated updates', () => {
  it('gets the greeting before any prompt, then /background 1 ending its turn with the terminal listed, its output after the idle, and its drop after the exit status', async () => {
    const schemas = await officialSchemas();
    const errors = vi.spyOn(console, 'error');
    const agent = spawnAgentProcess(0, ['--greet']);
    running = agent;
    const outcome = await officialClient({ name: 'interop-official-background' }).connectWith(
      agent.stream,
      async (ctx) => {
        await ctx.request('initialize', OFFICIAL_INITIALIZE);
        const session = await ctx.buildSession('/tmp').start();
        const greeting = await session.nextUpdate();
        const backgroundBeforePrompt = session.background;
        const response = await session.prompt('/background 1');
        const seen: { kind: string; update: Update }[] = [];
        for (;;) {
          const message = await session.nextUpdate();
          const update = message.update as Update;
          seen.push({ kind: message.kind, update });
          const listed = seen.some((s) => (s.update.background?.length ?? 0) > 0);
          if (listed && Array.isArray(update.background) && update.background.length === 0) break;
        }
        const backgroundAtEnd = session.background;
        session.dispose();
        return { greeting, backgroundBeforePrompt, response, seen, backgroundAtEnd };
      },
    );

    // The greeting: an agent message, before any prompt and without a state update.
    expect(outcome.greeting).toMatchObject({
      kind: 'session_update',
      update: {
        sessionUpdate: 'agent_message',
        content: [{ type: 'text', text: expect.stringMatching(/^Hello/) }],
      },
    });
    expect(outcome.backgroundBeforePrompt).toBeUndefined();
    expect(typeof outcome.response.messageId).toBe('string');

    const { seen } = outcome;
    const at = (predicate: (u: Update) => boolean) => seen.findIndex((s) => predicate(s.update));
    const announced = at((u) => u.sessionUpdate === 'terminal_update');
    const terminalId = seen[announced]!.update.terminalId!;
    const firstListed = at((u) => (u.background?.length ?? 0) > 0);
    const turnEnd = seen.findIndex((s) => s.kind === 'stop' && s.update.stopReason === 'end_turn');
    const exited = at((u) => u.exitStatus != null);
    const dropped = seen.length - 1;
    expect(announced).toBeGreaterThanOrEqual(0);
    expect(firstListed).toBeGreaterThan(announced);
    // The idle that ends the turn lists the terminal, still running.
    expect(seen[turnEnd]!.update.background).toEqual([{ type: 'terminal', terminalId }]);
    // Output after the turn ended: the terminal outlived it.
    expect(seen.slice(turnEnd + 1).some((s) => s.update.sessionUpdate === 'terminal_output_chunk')).toBe(
      true,
    );
    // Exit status first, then the repeated idle that drops it: a stop without a stop reason.
    expect(exited).toBeGreaterThan(turnEnd);
    expect(dropped).toBeGreaterThan(exited);
    expect(seen[dropped]).toEqual({
      kind: 'stop',
      update: { sessionUpdate: 'state_update', state: 'idle', background: [] },
    });
    // Every state update carries the list once it is reported; only the turn's own idle ends work.
    const states = seen.filter((s) => s.update.sessionUpdate === 'state_update').slice(1);
    expect(states.every((s) => Array.isArray(s.update.background))).toBe(true);
    expect(seen.filter((s) => s.kind === 'stop' && s.update.stopReason != null)).toHaveLength(1);
    expect(outcome.backgroundAtEnd).toEqual([]);

    const notifications = agent.wire.filter((m) => m.method === 'session/update');
    const rejected = notifications
      .map((m) => ({ m, r: schemas.notification.safeParse(m.params) }))
      .filter(({ r }) => !r.success)
      .map(({ m, r }) => ({ params: m.params, issues: r.success ? [] : r.error.issues }));
    expect(rejected).toEqual([]);
    expect(errors.mock.calls).toEqual([]);
    errors.mockRestore();
    expect(agent.stderr()).toBe('');
  });
});
