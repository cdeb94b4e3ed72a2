import type { RuleId } from '../rules/catalog.js';
import { asRecord } from '../analysis/envelope.js';
import { FUTURE_VALUE_PREFIX } from '../checks/baseline.js';
import { NEVER_CREATED_PREFIX } from '../checks/session-teardown.js';
import { liveUpdates, stateOf } from '../analysis/model.js';
import { type AgentProcess, ScenarioAbort } from './agent-process.js';
import {
  describeReply,
  initialize,
  longText,
  newSession,
  prompt,
  settled,
  text,
  waitSettled,
} from './steps.js';
import { nesScenario } from './nes-scenario.js';

/** What a scenario can say about rules it could not exercise. */
export interface ScenarioNotes {
  /** Rules the scenario could not reach, with the reason (replaces the generic "not applicable"). */
  skipped?: Partial<Record<RuleId, string>>;
  /** Why the scenario stopped early without it being the agent's fault (e.g. a wait timed out). */
  incomplete?: string;
}

/** One scripted interaction with a fresh agent process. */
export interface Scenario {
  name: string;
  description: string;
  /** The rules this scenario is designed to exercise; their skip reasons come from here. */
  covers: readonly RuleId[];
  /**
   * A setting without which the scenario is left out of the run, and why its rules are then
   * skipped (no agent process is started for it).
   */
  requires?: { setting: keyof ScenarioSettings; reason: string };
  run(agent: AgentProcess, cwd: string, settings: ScenarioSettings): Promise<ScenarioNotes>;
}

/** What the caller of a run tells its scenarios. */
export interface ScenarioSettings {
  /** A prompt that makes the agent start background work (see the background scenario). */
  backgroundPrompt?: string;
  /** A prompt that makes the agent start a subagent (unstable surface; see the subagent scenario). */
  subagentPrompt?: string;
}

/** An extension request every agent must answer (if only with -32601); see cancel.ends-cancelled. */
const READ_MARKER_METHOD = '_acp_kit/read_marker';

const timedOut = (what: string): ScenarioNotes => ({ incomplete: `timed out waiting for ${what}` });

const lifecycle: Scenario = {
  name: 'lifecycle',
  description: 'a prompt, then two identical prompts sent back to back (the second arrives during a turn)',
  covers: [
    'prompt.response.message-id',
    'prompt.user-message.reported',
    'prompt.user-message.same-id',
    'prompt.message-id.distinct',
    'prompt.response.before-idle',
    'state.running-before-idle',
    'state.stop-reason.known',
    'state.work-ends',
    'update.schema',
    'update.session-id',
    'agent-message.schema',
    'baseline.initialize.info',
    'baseline.session-list',
    'baseline.session-close',
  ],
  async run(agent, cwd) {
    await initialize(agent);
    const sessionId = await newSession(agent, cwd);
    await prompt(agent, sessionId, text('Hello from the acp-kit conformance kit.'));
    if (!(await waitSettled(agent, sessionId)))
      return timedOut('the first turn to end (idle with a stopReason)');
    const same = text('Please say the same thing twice.');
    await Promise.all([prompt(agent, sessionId, same), prompt(agent, sessionId, same)]);
    if (!(await waitSettled(agent, sessionId))) return timedOut('the identical prompts to be processed');
    // v2 baseline: the two required session methods.
    await agent.request('session/list', {});
    await agent.request('session/close', { sessionId });
    return {};
  },
};

/** A value of a later protocol version: not `_`-prefixed, so reserved and unknown to the agent. */
const future = (name: string) => `${FUTURE_VALUE_PREFIX}${name}`;

const rejection: Scenario = {
  name: 'rejection',
  description:
    'prompts for an unknown session, with an empty prompt and with malformed content; a session and prompts with values of a later protocol version; then a valid prompt',
  covers: [
    'prompt.rejected.error',
    'prompt.rejected.no-user-message',
    'prompt.rejected.error-code',
    'baseline.unknown-values',
  ],
  async run(agent, cwd) {
    await initialize(agent);
    const sessionId = await newSession(agent, cwd);
    await prompt(agent, 'acp-kit-conformance-no-such-session', text('Is anyone there?'));
    await prompt(agent, sessionId, []);
    await prompt(agent, sessionId, [{ type: 'text' }]);
    await prompt(agent, sessionId, [{ type: 'text', text: 42 }]);
    // Valid v2 that a later version could send: an MCP server of an unknown transport, a text
    // block for an unknown audience, a content block of an unknown type (alone and beside text).
    // Each may be accepted or refused with an error; none may go unanswered or crash the agent.
    await agent.request('session/new', { cwd, mcpServers: [{ type: future('transport'), name: 'future' }] });
    await prompt(agent, sessionId, [
      { type: 'text', text: 'Who is this for?', annotations: { audience: [future('role')] } },
    ]);
    await prompt(agent, sessionId, [{ type: future('block'), data: 'opaque' }]);
    await prompt(agent, sessionId, [
      text('See the attachment.')[0],
      { type: future('block'), data: 'opaque' },
    ]);
    // A valid prompt last: an agent handles a session's prompts in order, so any user message it
    // wrongly reports for the rejected ones shows up before this one settles, and an agent stuck
    // on a value it did not know leaves it unanswered.
    await prompt(agent, sessionId, text('Are you still there?'));
    if (!(await waitSettled(agent, sessionId))) return timedOut('the valid prompt to be processed');
    return {};
  },
};

const cancel: Scenario = {
  name: 'cancel',
  description: 'a long prompt cancelled with session/cancel as soon as the turn is running',
  covers: ['cancel.ends-cancelled'],
  async run(agent, cwd) {
    await initialize(agent);
    const sessionId = await newSession(agent, cwd);
    const answer = prompt(agent, sessionId, text(`Please repeat all of this back slowly: ${longText(400)}`));
    const started = await agent.waitFor(
      (analysis) =>
        analysis.updates.some((update) => {
          const state = update.sessionId === sessionId ? stateOf(update) : undefined;
          return state === 'running' || state === 'requires_action';
        }) || settled(analysis, sessionId),
    );
    if (!started) return timedOut('the long prompt to start running');
    await agent.notify('session/cancel', { sessionId });
    // Any answer to this request (-32601 is expected) shows the agent has read the cancel by then.
    await agent.request(READ_MARKER_METHOD, {});
    await answer;
    if (!(await waitSettled(agent, sessionId))) {
      return { incomplete: 'timed out waiting for the cancelled turn to end' };
    }
    return {};
  },
};

/** Whether the agent advertised `session/delete` in its initialize result. */
const offersDelete = (init: Record<string, unknown>): boolean => {
  const delete_ = asRecord(asRecord(asRecord(init.capabilities)?.session)?.delete);
  return delete_ !== undefined;
};

const teardown: Scenario = {
  name: 'teardown',
  description:
    'session/list without params; a long prompt, and session/close as soon as its turn runs; session/delete of a session that never existed and of one twice (when advertised)',
  covers: ['jsonrpc.params.omitted', 'session.close.cancels-turn', 'session.delete.unknown-succeeds'],
  async run(agent, cwd) {
    const init = await initialize(agent);
    // JSON-RPC 2.0 lets a request leave params out; session/list requires none of its params.
    await agent.request('session/list', undefined);
    const sessionId = await newSession(agent, cwd);
    const answer = prompt(agent, sessionId, text(`Please repeat all of this back slowly: ${longText(400)}`));
    const started = await agent.waitFor(
      (analysis) =>
        analysis.updates.some((update) => {
          const state = update.sessionId === sessionId ? stateOf(update) : undefined;
          return state === 'running' || state === 'requires_action';
        }) || settled(analysis, sessionId),
    );
    if (!started) return timedOut('the long prompt to start running');
    const closed = agent.request('session/close', { sessionId });
    // Its answer (-32601 is expected) shows the agent has read the close by then: what the agent
    // writes later is work it did after reading it (see session.close.cancels-turn).
    await agent.request(READ_MARKER_METHOD, {});
    await Promise.all([closed, answer]);
    // The turn ends in any case (an agent that refused the close still ends it by itself).
    if (!(await waitSettled(agent, sessionId))) return timedOut('the closed session’s turn to end');
    if (!offersDelete(init)) {
      return {
        skipped: {
          'session.delete.unknown-succeeds': 'the agent does not advertise capabilities.session.delete',
        },
      };
    }
    await agent.request('session/delete', {
      sessionId: `${NEVER_CREATED_PREFIX}-${Date.now().toString(36)}`,
    });
    const doomed = await newSession(agent, cwd);
    await agent.request('session/delete', { sessionId: doomed });
    await agent.request('session/delete', { sessionId: doomed });
    return {};
  },
};

const RESUME_RULES = [
  'resume.replay.message-id',
  'resume.replay.reset-before-chunks',
  'resume.replay.no-duplicate',
  'resume.no-replay-without-replay-from',
] as const satisfies readonly RuleId[];

/** Notes that skip every rule of a scenario for one reason. */
const skipAll =
  (rules: readonly RuleId[]) =>
  (reason: string): ScenarioNotes => ({ skipped: Object.fromEntries(rules.map((id) => [id, reason])) });

const skipResume = skipAll(RESUME_RULES);

const resume: Scenario = {
  name: 'resume',
  description:
    'two turns, then session/resume with replayFrom start and without it, on the same stdio connection',
  covers: RESUME_RULES,
  async run(agent, cwd) {
    const init = await initialize(agent);
    const session = asRecord(asRecord(init.capabilities)?.session);
    if (!session) return skipResume('the agent does not advertise capabilities.session (session/resume)');
    const sessionId = await newSession(agent, cwd);
    await prompt(agent, sessionId, text('Remember the first message.'));
    if (!(await waitSettled(agent, sessionId))) return timedOut('the first turn to end');
    await prompt(agent, sessionId, text('Remember the second message too.'));
    if (!(await waitSettled(agent, sessionId))) return timedOut('the second turn to end');
    const replayed = await agent.request('session/resume', { sessionId, cwd, replayFrom: { type: 'start' } });
    if (!replayed.ok && replayed.error?.code === -32601) {
      return skipResume('the agent answered session/resume with -32601 (method not found)');
    }
    if (!replayed.ok)
      throw new ScenarioAbort(`session/resume with replay failed: ${describeReply(replayed)}`, true);
    const plain = await agent.request('session/resume', { sessionId, cwd });
    if (!plain.ok)
      throw new ScenarioAbort(`session/resume without replay failed: ${describeReply(plain)}`, true);
    return {};
  },
};

const BACKGROUND_RULES = [
  'background.announced-first',
  'background.final-before-removal',
  'background.listed-once',
  'background.every-state-update',
  'background.cancel-leaves-running',
  'background.repeat-not-completion',
] as const satisfies readonly RuleId[];

const skipBackground = skipAll(BACKGROUND_RULES);

/** The last background list a session reported live, or undefined while it reported none. */
function latestBackground(analysis: Parameters<typeof settled>[0], sessionId: string): unknown[] | undefined {
  const lists = liveUpdates(analysis, sessionId)
    .filter((update) => stateOf(update) !== undefined)
    .map((update) => update.update.background)
    .filter((list) => Array.isArray(list));
  return lists.at(-1) as unknown[] | undefined;
}

const background: Scenario = {
  name: 'background',
  description:
    'a prompt that starts background work (--background-prompt), a long prompt cancelled while that work runs, the work left to end, then a resume with replay',
  covers: BACKGROUND_RULES,
  requires: {
    setting: 'backgroundPrompt',
    reason:
      'no background prompt was given (--background-prompt <text>: a prompt that makes the agent start background work)',
  },
  async run(agent, cwd, settings) {
    if (settings.backgroundPrompt === undefined) throw new ScenarioAbort('no background prompt', false);
    const init = await initialize(agent);
    const sessionId = await newSession(agent, cwd);
    await prompt(agent, sessionId, text(settings.backgroundPrompt));
    if (!(await waitSettled(agent, sessionId))) return timedOut('the background prompt to end');
    const listed = await agent.waitFor(
      (analysis) => (latestBackground(analysis, sessionId)?.length ?? 0) > 0,
    );
    if (!listed) return skipBackground('the agent listed no background work after the background prompt');
    const mark = agent.entries.length;
    const answer = prompt(agent, sessionId, text(`Please repeat all of this back slowly: ${longText(400)}`));
    const started = await agent.waitFor(
      (analysis) =>
        liveUpdates(analysis, sessionId).some((update) => {
          const state = update.index >= mark ? stateOf(update) : undefined;
          return state === 'running' || state === 'requires_action';
        }) || settled(analysis, sessionId),
    );
    if (!started) return timedOut('the long prompt to start running');
    await agent.notify('session/cancel', { sessionId });
    await agent.request(READ_MARKER_METHOD, {});
    await answer;
    if (!(await waitSettled(agent, sessionId))) return timedOut('the cancelled turn to end');
    const drained = await agent.waitFor((analysis) => latestBackground(analysis, sessionId)?.length === 0);
    if (!drained) return timedOut('the background list to become empty');
    if (asRecord(asRecord(init.capabilities)?.session)) {
      await agent.request('session/resume', { sessionId, cwd, replayFrom: { type: 'start' } });
    }
    return {};
  },
};

const FORK_RULES = ['fork.replay.retained', 'fork.replay.no-duplicate'] as const satisfies readonly RuleId[];

const skipFork = skipAll(FORK_RULES);

const fork: Scenario = {
  name: 'fork',
  description:
    'unstable surface: a turn, a replay of the session, session/fork, then a replay of the fork (only when the agent advertises capabilities.session.fork)',
  covers: FORK_RULES,
  async run(agent, cwd) {
    const init = await initialize(agent);
    const session = asRecord(asRecord(init.capabilities)?.session);
    if (!asRecord(session?.fork))
      return skipFork('the agent does not advertise capabilities.session.fork (unstable surface)');
    const sessionId = await newSession(agent, cwd);
    await prompt(agent, sessionId, text('Remember this before the fork.'));
    if (!(await waitSettled(agent, sessionId))) return timedOut('the turn before the fork to end');
    const source = await agent.request('session/resume', { sessionId, cwd, replayFrom: { type: 'start' } });
    if (!source.ok)
      throw new ScenarioAbort(`session/resume with replay failed: ${describeReply(source)}`, true);
    const forked = await agent.request('session/fork', { sessionId, cwd, mcpServers: [] });
    const forkId = forked.ok ? asRecord(forked.result)?.sessionId : undefined;
    if (typeof forkId !== 'string' || forkId === '')
      throw new ScenarioAbort(`session/fork did not return a sessionId: ${describeReply(forked)}`, true);
    const replayed = await agent.request('session/resume', {
      sessionId: forkId,
      cwd,
      replayFrom: { type: 'start' },
    });
    if (!replayed.ok)
      throw new ScenarioAbort(
        `session/resume of the fork with replay failed: ${describeReply(replayed)}`,
        true,
      );
    return {};
  },
};

const SUBAGENT_RULES = [
  'subagent.announced-first',
  'session-message.replay',
] as const satisfies readonly RuleId[];

const subagent: Scenario = {
  name: 'subagent',
  description:
    'unstable surface: a prompt that starts a subagent (--subagent-prompt), left to end, then a replay of the parent, which replays the child too',
  covers: SUBAGENT_RULES,
  requires: {
    setting: 'subagentPrompt',
    reason:
      'no subagent prompt was given (--subagent-prompt <text>: a prompt that makes the agent start a subagent; unstable surface)',
  },
  async run(agent, cwd, settings) {
    if (settings.subagentPrompt === undefined) throw new ScenarioAbort('no subagent prompt', false);
    const init = await initialize(agent);
    const sessionId = await newSession(agent, cwd);
    await prompt(agent, sessionId, text(settings.subagentPrompt));
    if (!(await waitSettled(agent, sessionId))) return timedOut('the subagent prompt to end');
    if (asRecord(asRecord(init.capabilities)?.session)) {
      const replayed = await agent.request('session/resume', {
        sessionId,
        cwd,
        replayFrom: { type: 'start' },
      });
      if (!replayed.ok)
        throw new ScenarioAbort(`session/resume with replay failed: ${describeReply(replayed)}`, true);
    }
    return {};
  },
};

/** The scenarios of a conformance run, in order. */
export const SCENARIOS: readonly Scenario[] = [
  lifecycle,
  rejection,
  cancel,
  teardown,
  resume,
  background,
  fork,
  subagent,
  nesScenario,
];
