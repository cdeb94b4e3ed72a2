/**
 * codex-acp (Zed's ACP adapter for OpenAI's codex, a Rust binary in a platform package) doing real turns
 * offline: a custom model provider in a scratch `CODEX_HOME` points it at the canned Responses server.
 * In `npm run check` it runs through bridge with the official client; the full matrix
 * (`npm run agents:matrix`) runs every path with both clients.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { codexAcp as spec } from './agents.js';
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
  for (const combo of combos([{ path: 'bridge', client: 'official' }]))
    describeScenario(spec, combo, { model: () => model, log, resume: true });
  itConforms(spec, () => model, log);
});
