/**
 * A real, published v1 agent behind `acp-kit bridge --serve v2`, driven by the official SDK's v2
 * client: Zed's `codex-acp` (npm `@zed-industries/codex-acp`, pinned), which ships a native binary
 * behind a Node wrapper script. It runs offline: its model endpoint is pointed at a closed port on
 * 127.0.0.1 (`-c openai_base_url=…`), so nothing leaves the machine and the prompt's failure is
 * certain. What it really does offline is driven and checked through the bridge: login required
 * before session/new, login with an API key, its approval-preset mode and model/effort options,
 * switching both, its slash commands, a prompt whose failure ends the turn idle with its error,
 * session list and close, logout, and the bridge taking the wrapper and binary down at EOF.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import {
  client as officialClient,
  ndJsonStream,
  type UpdateSessionNotification,
} from '@agentclientprotocol/sdk/experimental/v2';
import { afterEach, describe, expect, it, vi } from 'vitest';

const BIN = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));
/** The package's own entry (`bin/codex-acp.js`), which execs the platform binary. */
const CODEX_ACP = createRequire(import.meta.url).resolve('@zed-industries/codex-acp/bin/codex-acp.js');

/** Why codex-acp cannot run here (no binary for this platform), or undefined when it starts. */
function cannotStart(): string | undefined {
  const run = spawnSync(process.execPath, [CODEX_ACP, '--help'], { encoding: 'utf8', timeout: 60_000 });
  if (run.status === 0) return undefined;
  return `codex-acp does not start on ${process.platform}-${process.arch}: ${(run.stderr || String(run.error)).trim()}`;
}
const skipReason = cannotStart();
if (skipReason !== undefined) console.warn(`SKIPPED: ${skipReason}`);

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** PIDs of live processes whose environment carries `marker` (this test's own CODEX_HOME). */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(marker)) found.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe.skipIf(skipReason !== undefined)(
  'codex-acp (a published v1 agent) behind `acp-kit bridge --serve v2`',
  () => {
    it('logs in, switches mode and model, ends a failed offline prompt idle with its error, lists, closes, logs out and leaves no process behind', async () => {
      const errors = vi.spyOn(console, 'error');
      const home = mkdtempSync(join(tmpdir(), 'acp-kit-codex-home-'));
      const cwd = mkdtempSync(join(tmpdir(), 'acp-kit-codex-cwd-'));
      let bridge: ChildProcess | undefined;
      cleanups.push(() => {
        errors.mockRestore();
        if (bridge && bridge.exitCode === null && bridge.signalCode === null) bridge.kill('SIGKILL');
        for (const pid of processesWith(`CODEX_HOME=${home}`)) process.kill(pid, 'SIGKILL');
        rmSync(home, { recursive: true, force: true });
        rmSync(cwd, { recursive: true, force: true });
      });
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        CODEX_HOME: home,
        OPENAI_API_KEY: 'sk-acp-kit-offline',
      };
      delete env.CODEX_API_KEY;
      const endpoint = `http://127.0.0.1:${await closedPort()}/v1`;
      bridge = spawn(
        process.execPath,
        [
          BIN,
          'bridge',
          '--serve',
          'v2',
          '--',
          process.execPath,
          CODEX_ACP,
          '-c',
          `openai_base_url="${endpoint}"`,
        ],
        { stdio: ['pipe', 'pipe', 'pipe'], env },
      );
      let stderr = '';
      bridge.stderr!.setEncoding('utf8');
      bridge.stderr!.on('data', (text: string) => {
        stderr += text;
      });
      const exited = new Promise<number | null>((resolve) => bridge!.once('exit', (code) => resolve(code)));

      const updates: UpdateSessionNotification[] = [];
      const app = officialClient({ name: 'codex-interop' }).onNotification('session/update', ({ params }) => {
        updates.push(params);
      });
      const stream = ndJsonStream(
        Writable.toWeb(bridge.stdin!) as WritableStream<Uint8Array>,
        Readable.toWeb(bridge.stdout!) as ReadableStream<Uint8Array>,
      );
      const of = (sessionId: string) => updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);
      const current = (options: readonly { configId: string }[] | null | undefined, configId: string) =>
        (options?.find((o) => o.configId === configId) as { currentValue?: unknown } | undefined)
          ?.currentValue;

      await app.connectWith(stream, async (ctx) => {
        const init = await ctx.request('initialize', {
          protocolVersion: 2,
          info: { name: 'official-v2-client', version: '2.4.0' },
          capabilities: {},
        });
        expect(init.protocolVersion).toBe(2);
        expect(init.info).toMatchObject({ name: 'codex-acp', version: '0.16.0' });
        expect(init.authMethods).toContainEqual(
          expect.objectContaining({
            type: 'env_var',
            methodId: 'openai-api-key',
            vars: [{ name: 'OPENAI_API_KEY' }],
          }),
        );

        // codex-acp refuses to open a session before login; the v2 client logs in with auth/login.
        await expect(ctx.request('session/new', { cwd, mcpServers: [] })).rejects.toMatchObject({
          code: -32000,
          message: 'Authentication required',
        });
        expect(await ctx.request('auth/login', { methodId: 'openai-api-key' })).toEqual({});

        const created = await ctx.request('session/new', { cwd, mcpServers: [] });
        const { sessionId } = created;
        expect(created.configOptions?.map((o) => [o.configId, o.category])).toEqual([
          ['mode', 'mode'],
          ['model', 'model'],
          ['reasoning_effort', 'thought_level'],
        ]);
        expect(current(created.configOptions, 'mode')).toBe('read-only');

        // The model is v1 session/set_config_option, the mode option v1 session/set_mode.
        const models = created.configOptions?.find((o) => o.configId === 'model') as
          | { options: { value: string }[] }
          | undefined;
        const model = models?.options.at(-1)?.value ?? 'missing';
        const afterModel = await ctx.request('session/set_config_option', {
          type: 'id',
          sessionId,
          configId: 'model',
          value: model,
        });
        expect(current(afterModel.configOptions, 'model')).toBe(model);
        const afterMode = await ctx.request('session/set_config_option', {
          type: 'id',
          sessionId,
          configId: 'mode',
          value: 'auto',
        });
        expect(current(afterMode.configOptions, 'mode')).toBe('auto');
        expect(current(afterMode.configOptions, 'model')).toBe(model);

        // Offline, the prompt is taken (receipt), then fails: the turn ends idle, stop reason
        // error, with codex-acp's own error and its reason, instead of hanging.
        const receipt = await ctx.request('session/prompt', {
          sessionId,
          prompt: [{ type: 'text', text: 'hi' }],
        });
        expect(receipt.messageId).toEqual(expect.any(String));
        await vi.waitFor(
          () =>
            expect(of(sessionId).some((u) => u.sessionUpdate === 'state_update' && u.state === 'idle')).toBe(
              true,
            ),
          { timeout: 170_000, interval: 200 },
        );
        const turn = of(sessionId);
        expect(turn).toContainEqual(
          expect.objectContaining({ sessionUpdate: 'user_message', messageId: receipt.messageId }),
        );
        expect(turn).toContainEqual({ sessionUpdate: 'state_update', state: 'running' });
        expect(turn.find((u) => u.sessionUpdate === 'state_update' && u.state === 'idle')).toMatchObject({
          stopReason: 'error',
          error: { code: -32603, data: { message: expect.stringContaining(endpoint) } },
        });

        // Its slash commands arrived as v2's own update kind, inputs typed.
        const commands = turn.find((u) => u.sessionUpdate === 'available_commands_update') as
          | { availableCommands: { name: string; input?: unknown }[] }
          | undefined;
        expect(commands?.availableCommands).toContainEqual(
          expect.objectContaining({
            type: 'command',
            name: 'review',
            input: expect.objectContaining({ type: 'text' }),
          }),
        );
        expect(updates.filter((n) => n.update.sessionUpdate.startsWith('_'))).toEqual([]);

        const listed = await ctx.request('session/list', {});
        expect(listed.sessions).toContainEqual(expect.objectContaining({ sessionId, cwd }));
        expect(await ctx.request('session/close', { sessionId })).toEqual({});

        // Logged out, codex-acp again refuses a new session.
        expect(await ctx.request('auth/logout', {})).toEqual({});
        await expect(ctx.request('session/new', { cwd, mcpServers: [] })).rejects.toMatchObject({
          code: -32000,
        });
      });
      expect(errors.mock.calls).toEqual([]);

      // The editor goes away: at stdin EOF the bridge takes down the wrapper script and the binary.
      expect(processesWith(`CODEX_HOME=${home}`).length).toBeGreaterThan(0);
      bridge.stdin!.end();
      await expect(exited).resolves.toBe(0);
      await vi.waitFor(() => expect(processesWith(`CODEX_HOME=${home}`)).toEqual([]), { timeout: 60_000 });
      expect(stderr).not.toMatch(/TypeError|ReferenceError/);
    }, 300_000);
  },
);
