import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { connectWebSocket, spawnTransport, type Transport, WebSocketHandshakeError } from '@acp-kit/sdk';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, clientOver, listeningAgent, requireBuild, tempDir } from '../harness.js';

beforeAll(requireBuild);
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);

/** Tries a handshake; resolves with 'open' (then closes) or the refusing HTTP status. */
async function handshake(
  url: string,
  init: { token?: string; origin?: string } = {},
): Promise<number | 'open'> {
  let transport: Transport;
  try {
    transport = await connectWebSocket(url, {
      ...(init.token ? { token: init.token } : {}),
      ...(init.origin ? { headers: { Origin: init.origin } } : {}),
    });
  } catch (error) {
    if (error instanceof WebSocketHandshakeError) return error.status;
    throw error;
  }
  await transport.writer.close();
  return 'open';
}

/** Runs `acp-kit agent …` expecting it to stop on its own (a refused start). */
function runAgent(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(process.execPath, [BIN, 'agent', ...args], {
    encoding: 'utf8',
    timeout: 30_000,
    env,
  });
  return { status: result.status, stderr: result.stderr };
}

describe('acp-kit agent --listen, by default', () => {
  it('writes a random token to a 0600 file in a 0700 folder, prints the path but never the token, and removes it on exit', async () => {
    const agent = await listeningAgent();
    cleanups.push(() => agent.stop());
    const file = /token file: (\S+)/.exec(agent.stderr())?.[1];
    expect(file).toBeDefined();
    expect(agent.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(mode(file!)).toBe('600');
    expect(mode(dirname(file!))).toBe('700');
    expect(agent.stderr()).not.toContain(agent.token!);
    await agent.stop();
    expect(existsSync(file!)).toBe(false);
  });

  it('refuses a foreign Origin (403), a missing or wrong token (401), and accepts the token', async () => {
    const agent = await listeningAgent();
    cleanups.push(() => agent.stop());
    const token = agent.token!;
    const outcomes = {
      foreignOrigin: await handshake(agent.url, { token, origin: 'https://evil.example' }),
      noToken: await handshake(agent.url),
      wrongToken: await handshake(agent.url, { token: `${token.slice(0, -2)}xx` }),
      goodToken: await handshake(agent.url, { token }),
    };
    expect(outcomes).toEqual({ foreignOrigin: 403, noToken: 401, wrongToken: 401, goodToken: 'open' });
    // The refusals are logged for the operator, without any token.
    await expect.poll(() => agent.stderr(), { timeout: 60_000 }).toContain('HTTP 401');
    expect(agent.stderr()).toContain('refused 127.0.0.1 with HTTP 403 (origin not allowed');
    expect(agent.stderr()).toContain('Origin "https://evil.example"');
    expect(agent.stderr()).not.toContain(token);
  });

  it('serves a full turn to a client with the token', async () => {
    const agent = await listeningAgent();
    cleanups.push(() => agent.stop());
    const t = await clientOver(await connectWebSocket(agent.url, { token: agent.token! }));
    cleanups.push(() => t.client.close());
    const sessionId = await t.client.newSession('/work');
    expect(await t.client.prompt(sessionId, [{ type: 'text', text: 'hello' }])).toEqual(expect.any(String));
  });

  it('lets an allow-listed web origin in and keeps others out', async () => {
    const agent = await listeningAgent(['--allow-origin', 'http://localhost:5173']);
    cleanups.push(() => agent.stop());
    const token = agent.token!;
    expect(await handshake(agent.url, { token, origin: 'http://localhost:5173' })).toBe('open');
    expect(await handshake(agent.url, { token, origin: 'http://localhost:5174' })).toBe(403);
  });
});

describe('acp-kit agent --listen limits', () => {
  it('caps open connections per address with --max-per-address, answering 429', async () => {
    const agent = await listeningAgent(['--max-per-address', '2']);
    cleanups.push(() => agent.stop());
    const token = agent.token!;
    const held = [await connectWebSocket(agent.url, { token }), await connectWebSocket(agent.url, { token })];
    cleanups.push(() => Promise.all(held.map((t) => t.writer.close())));
    const refused = await connectWebSocket(agent.url, { token }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(WebSocketHandshakeError);
    expect(refused).toMatchObject({
      status: 429,
      reason: 'too many open connections from this address (at most 2)',
    });
    await expect.poll(() => agent.stderr(), { timeout: 60_000 }).toContain('HTTP 429');
  });
});

describe('acp-kit agent --listen token sources', () => {
  it('takes the token from ACP_KIT_TOKEN without printing it', async () => {
    const token = 'env-supplied-token-0123456789abcdef';
    process.env.ACP_KIT_TOKEN = token;
    let agent: Awaited<ReturnType<typeof listeningAgent>>;
    try {
      agent = await listeningAgent();
    } finally {
      delete process.env.ACP_KIT_TOKEN;
    }
    cleanups.push(() => agent.stop());
    expect(agent.stderr()).toContain('connection token taken from ACP_KIT_TOKEN');
    expect(agent.stderr()).not.toContain(token);
    expect(await handshake(agent.url, { token })).toBe('open');
    expect(await handshake(agent.url)).toBe(401);
  });

  it('writes a fresh token to --token-file (0600) and reuses it on the next start', async () => {
    const temp = tempDir();
    cleanups.push(temp.cleanup);
    const file = join(temp.dir, 'agent.token');
    const first = await listeningAgent(['--token-file', file]);
    const token = readFileSync(file, 'utf8').trim();
    expect(mode(file)).toBe('600');
    expect(await handshake(first.url, { token })).toBe('open');
    await first.stop();
    const second = await listeningAgent(['--token-file', file]);
    cleanups.push(() => second.stop());
    expect(await handshake(second.url, { token })).toBe('open');
  });

  it('refuses a token file that other users can read', () => {
    const temp = tempDir();
    cleanups.push(temp.cleanup);
    const file = join(temp.dir, 'shared.token');
    writeFileSync(file, 'readable-by-everyone-0123456789\n', { mode: 0o644 });
    const { status, stderr } = runAgent(['--listen', '127.0.0.1:0', '--token-file', file]);
    expect(status).toBe(2);
    expect(stderr).toContain('can be read by other users (mode 644)');
    expect(stderr).not.toContain('listening on');
  });
});

describe('acp-kit agent --no-auth and exposure', () => {
  it('accepts clients without a token on loopback with --no-auth, warns loudly, and still checks Origin', async () => {
    const agent = await listeningAgent(['--no-auth']);
    cleanups.push(() => agent.stop());
    expect(agent.token).toBeUndefined();
    expect(agent.stderr()).toContain('WARNING: --no-auth: ANY program or user on this machine can connect');
    expect(await handshake(agent.url)).toBe('open');
    expect(await handshake(agent.url, { origin: 'https://evil.example' })).toBe(403);
  });

  it('refuses --no-auth on a non-loopback address at start, before listening', () => {
    for (const address of ['0.0.0.0:0', '[::]:0', '192.168.1.20:0']) {
      const { status, stderr } = runAgent(['--listen', address, '--no-auth']);
      expect(status).toBe(2);
      expect(stderr).toContain('refusing --no-auth on');
      expect(stderr).not.toContain('listening on');
    }
  });

  it('refuses --no-auth with a token source, and listen-only flags without --listen', () => {
    expect(runAgent(['--listen', '127.0.0.1:0', '--no-auth', '--token-file', '/tmp/x']).status).toBe(2);
    const stray = runAgent(['--allow-origin', 'http://localhost:1']);
    expect(stray.status).toBe(2);
    expect(stray.stderr).toContain('--allow-origin only applies with --listen');
  });
});

describe('acp-kit agent --history file privacy', () => {
  it('creates a new history file and its WAL/SHM companions 0600', async () => {
    const temp = tempDir();
    cleanups.push(temp.cleanup);
    const db = join(temp.dir, 'history.db');
    const transport = spawnTransport(process.execPath, [BIN, 'agent', '--history', db], { name: 'agent' });
    cleanups.push(() => transport.shutdown({ graceMs: 500 }));
    const t = await clientOver(transport);
    await t.client.newSession('/work');
    expect([mode(db), mode(`${db}-wal`), mode(`${db}-shm`)]).toEqual(['600', '600', '600']);
  });

  it('warns about an existing history file that other users can read, and still serves it', async () => {
    const temp = tempDir();
    cleanups.push(temp.cleanup);
    const db = join(temp.dir, 'history.db');
    writeFileSync(db, '', { mode: 0o644 });
    let stderr = '';
    const transport = spawnTransport(process.execPath, [BIN, 'agent', '--history', db], {
      name: 'agent',
      onStderr: (text) => {
        stderr += text;
      },
    });
    cleanups.push(() => transport.shutdown({ graceMs: 500 }));
    const t = await clientOver(transport);
    await t.client.newSession('/work');
    expect(stderr).toContain(`WARNING: ${db} can be read by other users (mode 0644)`);
    expect(stderr).toContain(`chmod 600 ${db}`);
  });
});
