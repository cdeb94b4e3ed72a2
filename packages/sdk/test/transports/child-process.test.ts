import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Connection, ErrorCodes } from '../../src/rpc/index.js';
import { spawnTransport } from '../../src/transports/index.js';

const fixture = fileURLToPath(new URL('./fixtures/child-agent.ts', import.meta.url));

function spawnFixture(onStderr?: (text: string) => void) {
  const transport = spawnTransport(process.execPath, ['--import', 'tsx', fixture], {
    name: 'agent',
    onStderr,
  });
  const connection = new Connection(transport).listen();
  return { transport, connection };
}

describe('child process transport', () => {
  it('round-trips requests over the child’s stdin and stdout', async () => {
    const { transport, connection } = spawnFixture();
    expect(await connection.sendRequest('_test/anything', {}).catch((e: unknown) => e)).toMatchObject({
      code: ErrorCodes.MethodNotFound,
    });
    expect(await connection.sendRequest('echo', { hello: 'wörld' })).toEqual({ hello: 'wörld' });
    expect(await transport.shutdown()).toEqual({ code: 0, signal: null });
  });

  it('surfaces the child’s stderr to the callback', async () => {
    let stderr = '';
    const { transport, connection } = spawnFixture((text) => {
      stderr += text;
    });
    await connection.sendRequest('_test/stderr', { text: 'warming up' });
    await transport.shutdown();
    expect(stderr).toContain('warming up');
  });

  it('rejects a pending request with an error naming the exit code when the child exits', async () => {
    const { transport, connection } = spawnFixture();
    await connection.sendRequest('echo', {});
    const closed = new Promise<Error>((resolve) => connection.onClose(resolve));
    const error = await connection.sendRequest('_test/exit', { code: 3 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCodes.ConnectionClosed });
    expect((error as Error).message).toBe('connection closed: agent exited with code 3');
    expect(await closed).toBe(error);
    expect(await transport.exited).toEqual({ code: 3, signal: null });
  });

  it('escalates to SIGKILL when the child ignores the end of stdin and SIGTERM', async () => {
    const { transport, connection } = spawnFixture();
    expect(await connection.sendRequest('_test/stubborn', {})).toBe('stubborn');
    expect(await transport.shutdown({ graceMs: 100 })).toEqual({ code: null, signal: 'SIGKILL' });
    expect(connection.isClosed).toBe(true);
  });

  it('closes the connection with a clear error when the command cannot be started', async () => {
    const transport = spawnTransport('/nonexistent/acp-agent', [], { name: 'agent' });
    const connection = new Connection(transport).listen();
    const error = await connection.sendRequest('echo', {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCodes.ConnectionClosed });
    expect((error as Error).message).toMatch(/agent failed: spawn \/nonexistent\/acp-agent ENOENT/);
  });
});
