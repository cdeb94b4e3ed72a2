/**
 * The inspector owns exactly the agent (and the connections) its page shows: concurrent restarts
 * run one at a time and leave one agent; SIGTERM or SIGINT, once or twice, end it and every agent it
 * started; extra clients of a remote agent are capped, and one the agent refuses is reported as
 * refused, so no connection is held that the page does not show.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { MAX_EXTRA_CLIENTS } from '../../src/inspect/inspect-server.js';
import { requireBuild } from '../harness.js';
import { BEHIND_SH, type Command, childrenOf, killCommands, startCommand, until } from './processes.js';

beforeAll(requireBuild);
afterEach(killCommands);

async function startInspect(
  args: string[],
): Promise<{ command: Command; api: (path: string) => Promise<Response> }> {
  const command = startCommand(['inspect', ...args]);
  await until(() => /^http:\/\/127\.0\.0\.1:\d+\/#token=\S+\n/.test(command.stdout()), 'the inspector URL');
  const url = new URL(command.stdout().trim());
  const token = url.hash.slice('#token='.length);
  const api = (path: string): Promise<Response> =>
    fetch(`${url.origin}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, origin: url.origin },
    });
  return { command, api };
}

/** Whether the process runs (a zombie does not). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

describe.skipIf(process.platform !== 'linux')('inspect owns what its page shows', { timeout: 30_000 }, () => {
  it('six concurrent restarts leave exactly one agent, and SIGTERM then ends it and the inspector', async () => {
    const { command, api } = await startInspect(['--', ...BEHIND_SH]);
    await command.agentsStarted(1);
    const statuses = await Promise.all(
      Array.from({ length: 6 }, () => api('/api/restart').then((response) => response.status)),
    );
    expect(statuses).toEqual([204, 204, 204, 204, 204, 204]);
    command.look();
    // Every restart has answered: the agents it stopped are gone, the one it started runs.
    const agents = childrenOf(command.child.pid!);
    expect(agents).toHaveLength(1);
    // It is the last one started (the run the page shows), and the only stubborn agent left.
    await until(() => command.agents().some(([, group]) => group === agents[0]), 'the last agent to run');
    expect(command.agents().filter(([pid]) => running(pid))).toEqual([command.agents().at(-1)]);
    command.child.kill('SIGTERM');
    expect(await command.exited).toEqual({ code: 0, signal: null });
    expect(command.survivors()).toEqual([]);
  });

  it('a second SIGINT while it stops kills the agent at once, and the inspector exits 130', async () => {
    const { command } = await startInspect(['--', ...BEHIND_SH]);
    await command.agentsStarted(1);
    command.child.kill('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 100));
    command.child.kill('SIGINT');
    const exit = await command.exited;
    // The first SIGINT's stop may already be done when the second comes (it then exits 0).
    expect([0, 130]).toContain(exit.code);
    expect(command.survivors()).toEqual([]);
  });

  it(`holds at most ${MAX_EXTRA_CLIENTS} extra clients of a remote agent and refuses more, so the agent's per-address cap is never used up`, async () => {
    const agent = startCommand(['agent', '--listen', '127.0.0.1:0', '--no-auth']);
    await until(() => /listening on ws:\/\/\S+\n/.test(agent.stderr()), 'the agent to listen');
    const endpoint = /listening on (ws:\/\/\S+)\n/.exec(agent.stderr())![1]!;
    const { command, api } = await startInspect(['--url', endpoint]);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await api('/api/connect')).status);
    expect(statuses).toEqual([
      ...Array.from({ length: MAX_EXTRA_CLIENTS }, () => 200),
      ...Array.from({ length: 20 - MAX_EXTRA_CLIENTS }, () => 429),
    ]);
    const refusal = await (await api('/api/connect')).text();
    expect(refusal).toContain(`at most ${MAX_EXTRA_CLIENTS} extra clients`);
    // The agent allows 16 connections from one address: the inspector holds 1 + MAX_EXTRA_CLIENTS.
    const socket = new WebSocket(endpoint);
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('unexpected-response', (_request, response) =>
        reject(new Error(`the agent refused another client: HTTP ${response.statusCode}`)),
      );
    });
    socket.terminate();
    command.child.kill('SIGTERM');
    expect(await command.exited).toEqual({ code: 0, signal: null });
  });

  it('answers 502 with the reason when the remote agent refuses an extra client', async () => {
    const agent = startCommand(['agent', '--listen', '127.0.0.1:0', '--no-auth', '--max-per-address', '1']);
    await until(() => /listening on ws:\/\/\S+\n/.test(agent.stderr()), 'the agent to listen');
    const endpoint = /listening on (ws:\/\/\S+)\n/.exec(agent.stderr())![1]!;
    const { command, api } = await startInspect(['--url', endpoint]);
    const response = await api('/api/connect');
    expect(response.status).toBe(502);
    expect(await response.text()).toMatch(/429/);
    command.child.kill('SIGTERM');
    expect(await command.exited).toEqual({ code: 0, signal: null });
  });
});
