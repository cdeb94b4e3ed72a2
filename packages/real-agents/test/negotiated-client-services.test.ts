/**
 * A published v1 agent driven directly by acp-kit's `Client`, negotiated down to v1 in process (no
 * bridge process), which offers the agent its file system and terminals
 * (`createV1WireCodec({ clientServices })`). Offered them, claude-code-acp 0.16.2 replaces Claude
 * Code's own `Read`, `Write` and `Bash` with its `mcp__acp__*` tools, which call the client's
 * `fs/read_text_file`, `fs/write_text_file` and `terminal/*`. Checked: the agent reads the app's
 * unsaved buffer (what the model is sent is the buffer, not the file on disk), and a command runs
 * as a real process in the client, its output streamed to the client's store as a display
 * terminal before its exit. (claude-agent-acp 0.23.1 has no such tools: it never calls them.)
 */
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionUpdate } from '@acp-kit/schema';
import {
  type ChildProcessTransport,
  Client,
  type ClientConnection,
  Connection,
  negotiateClientVersion,
  schemaValidator,
  spawnTransport,
} from '@acp-kit/sdk';
import { createV1WireCodec, type V1ClientServicesOptions } from '@acp-kit/v1-compat';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AgentSetup, type AgentSpec, claudeCodeAcp } from './agents.js';
import { type ModelServer, startModelServer } from './model-server.js';
import { killAll } from './peers.js';

let model: ModelServer;
beforeAll(async () => {
  model = await startModelServer();
});
afterAll(async () => {
  await model?.close();
});
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** The agent over stdio, our client negotiated to v1 in front, offering `services`. */
async function connect(
  spec: AgentSpec,
  services: V1ClientServicesOptions,
): Promise<{
  client: Client;
  updates: SessionUpdate[];
  versions: number[];
}> {
  const setup: AgentSetup = spec.setup(model.origin);
  const [command, ...args] = setup.command;
  const transport: ChildProcessTransport = spawnTransport(command!, args, {
    name: spec.id,
    env: setup.env,
  });
  const versions: number[] = [];
  const connection: ClientConnection = new Connection(
    negotiateClientVersion(transport, {
      codecs: [createV1WireCodec({ clientServices: services })],
      onNegotiated: (v) => versions.push(v),
    }),
    { validator: schemaValidator },
  );
  const updates: SessionUpdate[] = [];
  connection.onMessage((direction, message) => {
    const m = message as { method?: string; params?: { update: SessionUpdate } };
    if (direction === 'in' && m.method === 'session/update' && m.params) updates.push(m.params.update);
  });
  const client = new Client(connection, {
    info: { name: 'acp-kit-negotiated', version: '1' },
    onPermission: async (request) => ({
      outcome: {
        outcome: 'selected',
        optionId: (request.options.find((o) => o.kind === 'allow_once') ?? request.options[0])!.optionId,
      },
    }),
  });
  cleanup.push(async () => {
    client.close();
    await transport.shutdown({ graceMs: 2000 });
    killAll(setup);
    setup.cleanup();
  });
  await client.initialize();
  return { client, updates, versions };
}

const toolNames = (body: unknown): string[] =>
  ((body as { tools?: { name?: string }[] } | undefined)?.tools ?? []).map((tool) => tool.name ?? '');

describe.each([claudeCodeAcp])(
  '$id uses the fs/* and terminal/* a negotiated acp-kit client offers',
  (spec) => {
    it("reads the app's unsaved buffer through fs/read_text_file, not the file on disk", async () => {
      const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-negotiated-read-')));
      cleanup.push(() => rmSync(cwd, { recursive: true, force: true }));
      const file = join(cwd, 'notes.md');
      writeFileSync(file, 'saved text on disk\n');
      const opened: string[] = [];
      const { client, versions } = await connect(spec, {
        openBuffer: ({ realPath }) => {
          opened.push(realPath);
          return realPath === file ? 'UNSAVED buffer text from the editor\n' : undefined;
        },
      });
      expect(versions).toEqual([1]);
      const sessionId = await client.newSession(cwd);
      const from = model.requests.length;
      const end = await client.promptToEnd(sessionId, [{ type: 'text', text: `read: ${file}` }]);
      expect(end.stopReason).toBe('end_turn');
      const sent = model.requests.slice(from);
      expect(sent.flatMap((r) => toolNames(r.body))).toContain('mcp__acp__Read');
      expect(opened).toContain(file);
      const bodies = sent.map((r) => JSON.stringify(r.body)).join('\n');
      expect(bodies).toContain('UNSAVED buffer text from the editor');
      expect(bodies).not.toContain('saved text on disk');
      expect(readFileSync(file, 'utf8')).toBe('saved text on disk\n');
    });

    it('runs a command as a terminal in the client, its output streamed to the store before it exits', async () => {
      const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-negotiated-run-')));
      cleanup.push(() => rmSync(cwd, { recursive: true, force: true }));
      const { client, updates } = await connect(spec, {});
      const sessionId = await client.newSession(cwd);
      const from = model.requests.length;
      const marker = join(cwd, 'ran.txt');
      const end = await client.promptToEnd(sessionId, [
        { type: 'text', text: `run: echo first-line; echo second-line; touch ${marker}` },
      ]);
      expect(end.stopReason).toBe('end_turn');
      expect(model.requests.slice(from).flatMap((r) => toolNames(r.body))).toContain('mcp__acp__Bash');
      expect(existsSync(marker)).toBe(true);
      const terminal = client.store.snapshot(sessionId).terminals.at(-1);
      expect(terminal?.output).toContain('first-line\nsecond-line\n');
      expect(terminal?.fields).toMatchObject({ cwd, exitStatus: { exitCode: 0 } });
      const chunk = updates.findIndex(
        (u) => u.sessionUpdate === 'terminal_output_chunk' && JSON.stringify(u).includes('first-line'),
      );
      const exit = updates.findIndex(
        (u) => u.sessionUpdate === 'terminal_update' && (u as { exitStatus?: unknown }).exitStatus != null,
      );
      expect(chunk).toBeGreaterThanOrEqual(0);
      expect(exit).toBeGreaterThan(chunk);
    });
  },
);
