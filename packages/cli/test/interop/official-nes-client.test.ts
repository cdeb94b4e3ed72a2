/**
 * #43, next edit suggestions: the official SDK's `experimental/nes` client (a v1 client, so the
 * agent's v1 codec and the v1 ⇄ v2 converters carry it) drives the real `acp-kit agent --unstable`
 * process over stdio: a start, document events in each sync kind the agent takes (didOpen,
 * incremental didChange, didSave, didFocus, didClose), suggestions of each kind (rename,
 * searchAndReplace, edit, jump), accept, reject and close. The official client parses every
 * answer with its own zod schemas (a failure rejects the request).
 */
import { afterEach, beforeAll, describe, it } from 'vitest';
import { requireBuild } from '../harness.js';
import { type AgentProcess, spawnAgentProcess } from './agent-process.js';
import { expectOfficialNesOutcome, runOfficialNesSession } from './official-nes-session.js';

beforeAll(requireBuild);
let running: AgentProcess | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

describe('the official NES client driving acp-kit agent --unstable', () => {
  it('starts, syncs a document, gets every kind of suggestion, accepts, rejects and closes', async () => {
    const agent = spawnAgentProcess(0, ['--unstable']);
    running = agent;
    expectOfficialNesOutcome(await runOfficialNesSession(agent.stream, 'interop-official-nes'));
  });
});
