/**
 * Needs fs39 merged (issue 39 "The bridge serves the v1 client services itself"). Offered the
 * client's file system and terminal, claude-code-acp 0.16.2 drops Claude Code's own `Write`, `Edit`
 * and `Bash` and edits and runs through its `mcp__acp__*` tools, that is through `fs/write_text_file`
 * and `terminal/*` on its client — the bridge, which serves them on the agent's machine. Checked:
 * the model is offered those tools (so the agent was offered the services), the command really ran
 * after the permission, the v2 client saw it as a display terminal, the file was written and the v2
 * client saw the write as a tool call with a diff.
 */
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCodeAcp } from './agents.js';
import { turn } from './conversation.js';
import { type ModelServer, startModelServer } from './model-server.js';
import { bridgeHost, killAll } from './peers.js';
import { ResultLog } from './results.js';

let model: ModelServer;
const log = new ResultLog('client-services');
beforeAll(async () => {
  model = await startModelServer();
});
afterAll(async () => {
  log.write();
  await model?.close();
});

const toolNames = (request: { body: unknown }): string[] =>
  (((request.body as { tools?: { name?: string }[] } | undefined)?.tools ?? []) as { name?: string }[]).map(
    (tool) => tool.name ?? '',
  );

describe('the bridge serves fs/* and terminal/* to a v1 agent (needs fs39 merged)', () => {
  it('claude-code-acp edits and runs through the bridge: a diff and a display terminal reach the v2 client', () =>
    log.record(
      {
        spec: claudeCodeAcp,
        path: 'bridge',
        transport: 'stdio',
        client: 'acp-kit',
        check: 'turn.client-fs-terminal',
      },
      async () => {
        const setup = claudeCodeAcp.setup(model.origin);
        const cwd = mkdtempSync(join(tmpdir(), 'acp-kit-claude-code-cwd-'));
        const ledger = mkdtempSync(join(tmpdir(), 'acp-kit-claude-code-ledger-'));
        const host = bridgeHost(setup, ledger);
        try {
          const peer = await host.connect('acp-kit');
          const sessionId = await peer.newSession(cwd);
          const from = model.requests.length;
          const file = join(cwd, 'through-fs.txt');
          const edit = await turn(peer, sessionId, `write: ${file} edited`);
          const offered = model.requests.slice(from).flatMap(toolNames);
          expect(offered).toContain('mcp__acp__Write');
          expect(offered).toContain('mcp__acp__Bash');
          expect(offered).not.toContain('Write');
          expect(readFileSync(file, 'utf8')).toBe('edited\n');
          expect(JSON.stringify(edit.updates.filter((u) => u.sessionUpdate === 'tool_call_update'))).toMatch(
            new RegExp(`"type":"diff".*${file.replace(/[/.]/g, '\\$&')}`),
          );

          const ran = join(cwd, 'through-terminal.txt');
          const shell = await turn(peer, sessionId, `run: touch ${ran}`);
          expect(peer.asked.at(-1)).toMatchObject({ answered: 'allow' });
          expect(existsSync(ran)).toBe(true);
          expect(shell.updates.some((u) => u.sessionUpdate === 'terminal_update')).toBe(true);
          expect(shell.stopReason).toBe('end_turn');
          await peer.close();
        } finally {
          await host.stop();
          killAll(setup);
          setup.cleanup();
          rmSync(cwd, { recursive: true, force: true });
          rmSync(ledger, { recursive: true, force: true });
        }
      },
    ));
});
