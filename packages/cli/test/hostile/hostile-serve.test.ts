/**
 * Issue 40, items 5–8 and 10: hostile peers and agents through the `serve` gateway — the token in
 * the agents' environment, an agent flooding a client that stopped reading, a client flooding an
 * agent that stopped reading (over WebSocket and as POSTs), an `initialize` abandoned before its
 * answer — each with a well-behaved client served by the same gateway meanwhile, and the
 * gateway's RSS read from /proc.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  abandonedInitialize,
  floodStalledWebSocket,
  initialize,
  killAll,
  MiB,
  post,
  postsIntoDeafAgent,
  startEndpoint,
  startGateway,
  webSocketIntoDeafAgent,
} from './peers.js';

afterEach(() => killAll());

/** Runs `serve` with ACP_KIT_TOKEN set in front of an agent that prints whether it sees it. */
async function agentSeesToken(flags: string[]): Promise<string> {
  const token = 'a-token-from-the-environment-12345';
  const gateway = await startEndpoint(
    [
      'serve',
      '--listen',
      '127.0.0.1:0',
      ...flags,
      '--',
      process.execPath,
      '-e',
      'process.stderr.write("agent sees ACP_KIT_TOKEN=" + (process.env.ACP_KIT_TOKEN ?? "(none)") + "\\n"); process.stdin.resume(); process.stdin.on("end", () => process.exit(0));',
    ],
    { ...process.env, ACP_KIT_TOKEN: token },
  );
  try {
    void post(gateway, token, initialize());
    // The agent's own line (the gateway's "each connection runs:" line quotes its code).
    const line = /^agent sees ACP_KIT_TOKEN=(\S+)$/m;
    for (let i = 0; i < 200 && !line.test(gateway.stderr()); i += 1)
      await new Promise((r) => setTimeout(r, 50));
    return line.exec(gateway.stderr())?.[1] ?? 'no line';
  } finally {
    gateway.stop();
  }
}

describe('acp-kit serve against hostile peers and agents', () => {
  it('keeps ACP_KIT_TOKEN out of the agents’ environment unless --pass-token asks for it', async () => {
    expect(await agentSeesToken([])).toBe('(none)');
    expect(await agentSeesToken(['--pass-token'])).toBe('a-token-from-the-environment-12345');
  }, 60_000);

  it('an agent flooding a WebSocket client that stopped reading: the gateway stays within 64 MiB more and closes it with 1008', async () => {
    const gateway = await startGateway();
    const report = await floodStalledWebSocket(gateway, 15_000);
    expect(report.peakGrowth).toBeLessThan(64 * MiB);
    expect(report.closeCode).toBe(1008);
    expect(report.closeReason).toMatch(/not reading/);
    expect(report.goodClientServed).toBe(true);
  }, 90_000);

  it('64 MiB over WebSocket to an agent that stopped reading stdin: the gateway stops reading the client and stays within 32 MiB more', async () => {
    const gateway = await startGateway();
    const report = await webSocketIntoDeafAgent(gateway, 64);
    expect(report.peakGrowth).toBeLessThan(32 * MiB);
    expect(report.goodClientServed).toBe(true);
  }, 90_000);

  it('64 MiB as POSTs to an agent that stopped reading stdin: 503 with Retry-After once 1 MiB waits, and the gateway stays within 48 MiB more', async () => {
    const gateway = await startGateway();
    const report = await postsIntoDeafAgent(gateway, 64);
    expect(report.statuses[503]).toBeGreaterThan(50);
    expect(report.statuses[202]).toBeLessThanOrEqual(4);
    expect(report.retryAfter).toBe('1');
    // The bodies refused still cross the socket: what the gateway's GC has not collected yet stays (about 35 MiB at 160 MiB sent).
    expect(report.peakGrowth).toBeLessThan(48 * MiB);
    expect(report.goodClientServed).toBe(true);
  }, 90_000);

  it('an initialize abandoned before its answer ends its agent at once, not at the idle timeout', async () => {
    const gateway = await startGateway();
    const report = await abandonedInitialize(gateway, 10_000);
    expect(report.agentPid).toBeGreaterThan(0);
    expect(report.agentEnded).toBe(true);
    expect(gateway.stderr()).toMatch(/closed; stopping agent pid/);
  }, 60_000);
});
