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
  // The strict conformance run is in divergent-replay.test.ts.
  const why =
    'awaits replay39: its session/load replays two user entries never shown live (the /model command and its output)';
  itConforms(
    spec,
    () => model,
    log,
    [
      ['resume.replay.message-id', 'resume'],
      ['resume.replay.message-id', 'fork'],
      ['resume.replay.no-duplicate', 'resume'],
      ['resume.replay.no-duplicate', 'fork'],
      ['fork.replay.retained', 'fork'],
    ].map(([rule, scenario]) => ({ rule: rule!, scenario: scenario!, why })),
  );
});
