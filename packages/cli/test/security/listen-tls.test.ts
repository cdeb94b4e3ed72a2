import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectWebSocket } from '@acp-kit/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientOver, listeningAgent, requireBuild, tempDir } from '../harness.js';

const temp = tempDir();
const cert = join(temp.dir, 'cert.pem');
const key = join(temp.dir, 'key.pem');
beforeAll(() => {
  requireBuild();
  // A throwaway self-signed certificate for 127.0.0.1, made by the system's openssl.
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
});
afterAll(temp.cleanup);

describe('acp-kit agent --listen with --tls-cert and --tls-key', () => {
  it('serves wss:// to a client that trusts the certificate and presents the token', async () => {
    const agent = await listeningAgent(['--tls-cert', cert, '--tls-key', key]);
    try {
      expect(agent.url).toMatch(/^wss:\/\/127\.0\.0\.1:\d+$/);
      const ca = readFileSync(cert);
      await expect(connectWebSocket(agent.url, { ca })).rejects.toMatchObject({ status: 401 });
      const t = await clientOver(await connectWebSocket(agent.url, { token: agent.token!, ca }));
      const sessionId = await t.client.newSession('/work');
      expect(await t.client.prompt(sessionId, [{ type: 'text', text: 'over tls' }])).toEqual(
        expect.any(String),
      );
      t.client.close();
    } finally {
      await agent.stop();
    }
  });
});
