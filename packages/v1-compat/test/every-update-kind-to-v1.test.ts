/**
 * Every v2 update kind reaches a v1 client in its v1 form, or is reported as lost — never dropped
 * without a word. Each example update of every kind (iterated from the generated tables, so a new
 * kind is covered) is sent in its own session's turn, through the in-process v1 codec and through
 * the process-level bridge (`bridge-main.ts v1` spawning the v2 fixture agent, whose losses
 * `runBridge` logs on stderr). A kind gated by a v1 client capability reaches only a client that
 * advertised it; any other is told of the loss.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  Agent,
  Connection,
  createInProcessPair,
  negotiateAgentVersion,
  schemaValidator,
  streamTransport,
} from '@acp-kit/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { UPDATES_TO_V1, type UpdateToV1 } from '../src/generated/compat/update-to-v1.js';
import type * as V1 from '../src/generated/v1/types.js';
import { type BridgeLoss, createV1WireCodec, v1SchemaValidator } from '../src/index.js';
import { bridgeArgs } from './helpers.js';
import { type UpdateExample, updateExamples } from './update-examples.js';

const TIMEOUT = 120_000;
const examples = updateExamples();

/** What one v1 client saw: the updates of each session, the losses reported for each, the answers. */
interface Seen {
  updates: Map<string, V1.SessionUpdate[]>;
  losses: BridgeLoss[];
  answers: Map<string, unknown>;
}

type Capabilities = V1.ClientCapabilities;
const ADVERTISING: Capabilities = { session: { notices: {}, compaction: {} } };
const ADVERTISING_NOTHING: Capabilities = {};

/** Whether the client's capabilities hold the value a pointer names (present, not null). */
function advertises(capabilities: Capabilities, pointer: string): boolean {
  let value: unknown = capabilities;
  for (const token of pointer.slice(1).split('/')) {
    if (typeof value !== 'object' || value === null) return false;
    value = (value as Record<string, unknown>)[token];
  }
  return value !== undefined && value !== null;
}

/** Runs every example, one session each, over a raw v1 connection; returns what arrived. */
async function runExamples(v1: Connection, capabilities: Capabilities): Promise<Omit<Seen, 'losses'>> {
  const updates = new Map<string, V1.SessionUpdate[]>();
  const answers = new Map<string, unknown>();
  v1.onNotification('session/update', (params) => {
    const { sessionId, update } = params as V1.SessionNotification;
    updates.set(sessionId, [...(updates.get(sessionId) ?? []), update]);
  });
  v1.onUnhandledNotification(() => undefined);
  v1.listen();
  await v1.sendRequest('initialize', {
    protocolVersion: 1,
    clientInfo: { name: 'every-kind', version: '1' },
    clientCapabilities: capabilities,
  });
  for (const [index] of examples.entries()) {
    const { sessionId } = (await v1.sendRequest('session/new', { cwd: '/tmp', mcpServers: [] })) as {
      sessionId: string;
    };
    const answer = await v1.sendRequest('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: `example:${index}` }],
    });
    answers.set(sessionId, answer);
    updates.set(sessionId, updates.get(sessionId) ?? []);
  }
  return { updates, answers };
}

/** Every example that neither arrived in its v1 form nor was reported lost (or broke gating). */
function failures(seen: Seen, capabilities: Capabilities): string[] {
  const out: string[] = [];
  [...seen.answers.keys()].forEach((sessionId, index) => {
    const example = examples[index] as UpdateExample;
    const entry = UPDATES_TO_V1[example.kind] as UpdateToV1<unknown>;
    const got = seen.updates.get(sessionId) ?? [];
    const arrived = got.filter((u) => entry.v1.includes(u.sessionUpdate));
    const other = got.filter((u) => !entry.v1.includes(u.sessionUpdate)).map((u) => u.sessionUpdate);
    const lost = seen.losses.filter((l) => l.sessionId === sessionId && l.in === example.kind);
    const label = `${example.kind} (${example.name})`;
    if (other.length > 0)
      out.push(`${label}: arrived as ${other.join(', ')}, not as ${entry.v1.join(' or ')}`);
    if (JSON.stringify(seen.answers.get(sessionId)) !== '{"stopReason":"end_turn"}')
      out.push(`${label}: the prompt was answered ${JSON.stringify(seen.answers.get(sessionId))}`);
    const gated = entry.v1Capability !== undefined && !advertises(capabilities, entry.v1Capability);
    if (gated && arrived.length > 0)
      out.push(`${label}: sent to a client that did not advertise ${entry.v1Capability}`);
    if (gated && lost.length === 0)
      out.push(`${label}: not reported lost to a client without ${entry.v1Capability}`);
    // state_update has no v1 update form (sentAsV1 is empty): running and idle are the prompt's
    // open request and its answer (checked above); any other state must be reported.
    const answeredOnly = entry.v1.length === 0 && entry.convert !== undefined;
    const state = (example.update as { state?: unknown }).state;
    if (answeredOnly && (state === 'running' || state === 'idle')) return;
    // A message created empty (or cleared before the v1 client was shown any of it) shows nothing.
    const content = (example.update as { messageId?: unknown; content?: unknown }).content;
    const empty = content === null || (Array.isArray(content) && content.length === 0);
    if ('messageId' in example.update && empty && arrived.length === 0) return;
    if (!gated && arrived.length === 0 && lost.length === 0)
      out.push(`${label}: neither arrived as ${entry.v1.join(' or ') || '(no v1 kind)'} nor reported lost`);
  });
  return out;
}

/** The in-process codec in front of an SDK agent that sends the n-th example on prompt `example:<n>`. */
async function throughCodec(capabilities: Capabilities): Promise<Seen> {
  const losses: BridgeLoss[] = [];
  const agent = new Agent({
    info: { name: 'every-kind-agent', version: '1.0.0' },
    unstable: true,
    onPrompt: async (prompt, { session }) => {
      await prompt.insert();
      await session.running();
      const said = prompt.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      const example = examples[Number(said.slice('example:'.length))];
      if (example !== undefined) await session.update(example.update);
      await session.idle('end_turn');
    },
  });
  const [agentSide, clientSide] = createInProcessPair();
  const codec = createV1WireCodec({ onLoss: (loss) => losses.push(loss) });
  agent.serve(
    new Connection(negotiateAgentVersion(agentSide, { codecs: [codec] }), { validator: schemaValidator }),
  );
  const v1 = new Connection(clientSide, { validator: v1SchemaValidator });
  try {
    return { ...(await runExamples(v1, capabilities)), losses };
  } finally {
    v1.close();
  }
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGTERM');
});

/** The process-level bridge; losses are read from its stderr once it has exited. */
async function throughBridgeProcess(capabilities: Capabilities): Promise<Seen> {
  const child = spawn(process.execPath, bridgeArgs('v1', 'v2-agent.ts'), { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const closed = new Promise((resolve) => child.once('close', resolve));
  const v1 = new Connection(streamTransport(child.stdout!, child.stdin!), { validator: v1SchemaValidator });
  const seen = await runExamples(v1, capabilities);
  v1.close();
  child.stdin!.end();
  await closed;
  const losses: BridgeLoss[] = [];
  for (const match of stderr.matchAll(/left out (\S+) (\S+|\(whole update\)) for session (\S+): (.*)/g)) {
    const [, kind, pointer, sessionId, reason] = match as unknown as string[];
    losses.push({ in: kind!, pointer: pointer!, sessionId: sessionId!, reason: reason! });
  }
  return { ...seen, losses };
}

describe('every v2 update kind, sent to a v1 client', () => {
  for (const [label, capabilities] of [
    ['that advertised session.notices and session.compaction', ADVERTISING],
    ['that advertised neither', ADVERTISING_NOTHING],
  ] as const) {
    it(`arrives in its v1 form or is reported lost, through the in-process codec, to a client ${label}`, async () => {
      const seen = await throughCodec(capabilities);
      expect(failures(seen, capabilities)).toEqual([]);
    });

    it(
      `arrives in its v1 form or is reported lost, through the bridge process, to a client ${label}`,
      async () => {
        const seen = await throughBridgeProcess(capabilities);
        expect(failures(seen, capabilities)).toEqual([]);
      },
      TIMEOUT,
    );
  }

  it('covers every kind of the generated v2 update table with at least one example', () => {
    expect(new Set(examples.map((e) => e.kind))).toEqual(new Set(Object.keys(UPDATES_TO_V1)));
  });
});
