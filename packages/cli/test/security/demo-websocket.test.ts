import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, requireBuild } from '../harness.js';

beforeAll(requireBuild);

describe('acp-kit demo --websocket', () => {
  it('runs the whole demo over a loopback WebSocket, connecting with the token from the agent’s token file', () => {
    const result = spawnSync(process.execPath, [BIN, 'demo', '--websocket'], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/agent listening on ws:\/\/127\.0\.0\.1:\d+; connecting with the token/);
    expect(result.stdout.match(/same ID as before the restart/g)).toHaveLength(6);
  });
});
