/**
 * claude-agent-acp 0.23.1 (Zed's ACP adapter for the Claude Agent SDK) doing real turns offline:
 * `ANTHROPIC_BASE_URL` points Claude Code at the canned Messages server, in a scratch `HOME`. Its
 * `session/load` replays two user entries never shown live, so the replay's content is checked in
 * divergent-replay.test.ts.
 * In `npm run check` it runs through serve-websocket with the official client; the full matrix
 * (`npm run agents:matrix`) runs every path with both clients.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { claudeAgentAcp as spec } from './agents.js';
import { itConforms } from './conformance.js';
import { type ModelServer, startModelServer } from './model-server.js';
import { ResultLog } from './results.js';
import { combos, describeScenario } from './scenario.js';

let model: ModelServer;
const log = new ResultLog(spec.id);
beforeAll(async () => {
  model = await startModelServer();
});
afterAll(async () => {
  log.write();
  await model?.close();
});

describe(`${spec.npm} ${spec.version}, offline against a canned model server`, () => {
  for (const combo of combos([{ path: 'serve-websocket', client: 'official' }]))
    describeScenario(spec, combo, { model: () => model, log, resume: false });
  // Its session/load replays two user entries it never sent live (the /model command and its
  // output): the bridge gives them fresh IDs, and resume.replay.message-id passes with a note. One
  // rule fails, the agent's doing, seen on the v1 wire: after session/fork, the fork's session/load
  // answers without a single session/update (the source's load, just before, replayed every entry),
  // so the fork's replay through the bridge holds nothing of the source. Every other rule passes.
  const forkReplay =
    "claude-agent-acp's session/load of a fork made before the fork's first turn replays nothing (on the v1 wire it answers with no session/update, where the source's load just before replayed every entry): the agent's, not the bridge's";
  itConforms(spec, () => model, log, [{ rule: 'fork.replay.retained', scenario: 'fork', why: forkReplay }]);
});
