/**
 * The capacity benchmark's load generator (bench/capacity-run.ts) at a tiny N: 5 sessions, one of
 * them with a second client, a 2 s window, over Streamable HTTP against our agent and the official
 * one, every process real (agent, load-generator client), on 127.0.0.1. What a report says must
 * hold together, or its figures cannot be trusted: every field present and finite, the chunks
 * every client took in equal to what the agent says it sent to each session times the session's
 * clients (nothing in flight once every turn ended), the agent process's own total equal to the
 * count the chunks carry, none out of order, every session answered. No figure of speed is
 * asserted. Both cells also sample what the agent allocates over the window: the report must
 * name bytes and chunks, and the allocations must be found in the agent's own SDK (ours, or the
 * official one). (`serve` is not run here: it needs the CLI, which depends on this package.)
 */
import { describe, expect, it } from 'vitest';
import type { Implementation } from '../../bench/capacity-protocol.js';
import { type CellReport, runCapacityCell } from '../../bench/capacity-run.js';
import { CHUNKS_PER_SECOND } from '../../bench/paced-turn.js';

const SESSIONS = 5;

function expectConsistent(report: CellReport): void {
  const finite = [
    report.chunksPerSecond,
    report.agentCpuMs,
    report.agentCpuUsPerChunk,
    report.chunksPerAgentCoreSecond,
    report.latencyP50Ms,
    report.latencyP99Ms,
    report.receiptP50Ms,
    report.receiptP99Ms,
    report.rssBefore,
    report.rssAfter,
    report.rssPerSession,
    report.heapPerSession,
    report.clientsCpuMs,
    report.ownShareOfCores,
    report.machineBusy,
  ];
  for (const value of finite) expect(Number.isFinite(value)).toBe(true);
  // Where the RSS grew, from the agent's own answers over IPC.
  expect(report.rssParts).toBeDefined();
  for (const value of Object.values(report.rssParts!)) expect(Number.isFinite(value)).toBe(true);
  expect(report.sessions).toBe(SESSIONS);
  expect(report.secondClients).toBe(1);
  expect(report.delivered).toBeGreaterThan(0);
  expect(report.receipts).toBeGreaterThan(0);
  expect(report.latencyP50Ms).toBeLessThanOrEqual(report.latencyP99Ms);
  expect(report.receiptP50Ms).toBeLessThanOrEqual(report.receiptP99Ms);
  expect(report.load).toMatch(/^\d/);
  // The agent paces: no more chunks than 30/s per client of each session can have been taken in.
  const clients = report.sessions + report.secondClients;
  expect(report.delivered).toBeLessThanOrEqual(clients * CHUNKS_PER_SECOND * (report.windowMs / 1000 + 1));

  const { check } = report;
  expect(check.agentSent).toBeGreaterThan(0);
  expect(check.agentTotal).toBe(check.agentSent);
  // The session with a second client counts twice.
  expect(check.expected).toBeGreaterThan(check.agentSent);
  expect(check.delivered).toBe(check.expected);
  expect(check.inFlight).toBe(0);
  expect(check.irregular).toBe(0);
  expect(check.withoutReceipt).toBe(0);
  expect(check.behind).toBe(0);
  expect(check.lost).toBe(0);
  expect(report.delivered).toBeLessThanOrEqual(check.delivered);
}

/** What a report of the agent's allocations must hold. */
function expectAllocations(report: CellReport, sdkArea: string): void {
  const allocations = report.allocations;
  expect(allocations).toBeDefined();
  const { bytes, chunks, areas, top } = allocations!;
  expect(bytes).toBeGreaterThan(0);
  // Chunks sent while sampling: some, and no more than the whole run sent.
  expect(chunks).toBeGreaterThan(0);
  expect(chunks).toBeLessThanOrEqual(report.check.agentSent);
  const byArea = Object.values(areas).reduce((sum, b) => sum + b, 0);
  expect(byArea).toBeCloseTo(bytes, 0);
  expect(areas[sdkArea]).toBeGreaterThan(0);
  expect(top.length).toBeGreaterThan(0);
  for (let i = 1; i < top.length; i += 1) expect(top[i]!.bytes).toBeLessThanOrEqual(top[i - 1]!.bytes);
}

describe('the capacity load generator', () => {
  for (const implementation of ['ours', 'official'] as Implementation[]) {
    it(`reports consistent counts and the agent's allocations for 5 streaming sessions over Streamable HTTP against ${implementation === 'ours' ? 'our agent' : 'the official AcpServer'}`, async () => {
      const report = await runCapacityCell({
        implementation,
        profile: 'http',
        sessions: SESSIONS,
        clients: 1,
        secondShare: 0.2,
        warmupMs: 500,
        windowMs: 2000,
        allocations: true,
      });
      expectConsistent(report);
      expectAllocations(report, implementation === 'ours' ? 'acp-kit SDK' : 'official SDK');
    });
  }
});
