/**
 * No orphans behind the `serve` gateway: one agent per connection, started behind `sh -c` (the
 * shell stays as its parent) and ignoring the end of its stdin and SIGTERM. The client leaving
 * ends that agent's process group; SIGTERM, once or twice, ends the gateway and every agent.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { requireBuild } from '../harness.js';
import { BEHIND_SH, type Command, killCommands, startCommand, until } from './processes.js';

beforeAll(requireBuild);
afterEach(killCommands);

async function startServe(extra: string[] = []): Promise<{ command: Command; url: string }> {
  const command = startCommand([
    'serve',
    '--listen',
    '127.0.0.1:0',
    '--no-auth',
    ...extra,
    '--',
    ...BEHIND_SH,
  ]);
  await until(() => /listening on ws:\/\/\S+\n/.test(command.stderr()), 'serve to listen');
  const url = `${/listening on (ws:\/\/\S+)\n/.exec(command.stderr())![1]}/acp`;
  return { command, url };
}

/** Connects a client and has it initialize (through the agent, so the agent runs). */
async function connect(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  socket.send(
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 2 } }),
  );
  await new Promise((resolve) => socket.once('message', resolve));
  return socket;
}

describe.skipIf(process.platform !== 'linux')('serve leaves no process behind', { timeout: 30_000 }, () => {
  it('ends the agent behind sh -c when its client leaves, and nothing of it survives SIGTERM', async () => {
    const { command, url } = await startServe();
    const socket = await connect(url);
    const [[, group]] = (await command.agentsStarted(1)) as [[number, number]];
    expect(group).not.toBe(command.child.pid);
    socket.terminate();
    // The gateway closes the agent's stdin, then signals its group: the shell and the agent go.
    await until(() => command.survivors().length === 0, 'the agent to be gone');
    expect(command.stderr()).toMatch(/closed; stopping agent pid/);
    command.child.kill('SIGTERM');
    expect(await command.exited).toEqual({ code: 0, signal: null });
    expect(command.survivors()).toEqual([]);
  });

  it('SIGTERM with clients connected ends every agent and the gateway exits 0', async () => {
    const { command, url } = await startServe();
    await connect(url);
    await connect(url);
    await command.agentsStarted(2);
    command.child.kill('SIGTERM');
    expect(await command.exited).toEqual({ code: 0, signal: null });
    expect(command.survivors()).toEqual([]);
  });

  it('a second SIGTERM during that stop kills every agent at once, and the gateway exits 143', async () => {
    const { command, url } = await startServe();
    await connect(url);
    await command.agentsStarted(1);
    command.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    command.child.kill('SIGTERM');
    expect(await command.exited).toEqual({ code: 143, signal: null });
    expect(command.survivors()).toEqual([]);
  });

  it('--v1: the agent behind the bridge behind the gateway is gone once its client leaves', async () => {
    const { command, url } = await startServe(['--v1']);
    const socket = new WebSocket(url);
    await new Promise((resolve) => socket.once('open', resolve));
    await command.agentsStarted(1);
    socket.terminate();
    await until(() => command.survivors().length === 0, 'the bridge and its agent to be gone');
    command.child.kill('SIGINT');
    expect(await command.exited).toEqual({ code: 0, signal: null });
    expect(command.survivors()).toEqual([]);
  });
});
