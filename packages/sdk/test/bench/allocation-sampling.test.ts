/**
 * The sum of a sampling heap profile (bench/allocation-sampling.ts): every node's self size is
 * counted once, whatever its depth, by where its code lives and by function (one function reached
 * by two call paths is one entry), largest first.
 */
import { describe, expect, it } from 'vitest';
import { areaOf, summarizeProfile } from '../../bench/allocation-sampling.js';

type Node = Parameters<typeof summarizeProfile>[0];
const node = (
  functionName: string,
  url: string,
  lineNumber: number,
  selfSize: number,
  children: Node[] = [],
): Node => ({
  callFrame: { functionName, url, lineNumber },
  selfSize,
  children,
});

describe('summing a sampling heap profile', () => {
  it('counts every node once, merges a function reached by two paths and sorts functions by bytes', () => {
    const append = (size: number): Node =>
      node('append', 'file:///r/packages/sdk/dist/history/log.js', 120, size);
    const head = node('(root)', '', 0, 0, [
      node('streamPaced', 'file:///r/packages/sdk/bench/paced-turn.ts', 0, 100, [append(300)]),
      node('deliver', 'file:///r/packages/sdk/dist/agent/delivery.js', 61, 50, [
        append(200),
        node('writeOrBuffer', 'node:internal/streams/writable', 547, 80),
        node('stringify', '', 0, 70),
      ]),
    ]);
    const summary = summarizeProfile(head, 3);
    expect(summary.bytes).toBe(800);
    expect(summary.areas).toEqual({
      'the benchmark': 100,
      'acp-kit SDK': 550,
      Node: 80,
      'V8 (builtins, JSON, no script)': 70,
    });
    expect(summary.top).toEqual([
      { name: 'append', where: 'dist/history/log.js:121', bytes: 500 },
      { name: 'streamPaced', where: 'bench/paced-turn.ts:1', bytes: 100 },
      { name: 'writeOrBuffer', where: 'node:internal/streams/writable:548', bytes: 80 },
    ]);
  });

  it('tells the official SDK, its dependencies and ours apart by path', () => {
    expect(areaOf('file:///r/node_modules/@agentclientprotocol/sdk/dist/acp.js')).toBe('official SDK');
    expect(areaOf('file:///r/node_modules/ws/lib/sender.js')).toBe('other dependencies');
    expect(areaOf('file:///r/packages/schema/dist/validators.js')).toBe('acp-kit schema');
    expect(areaOf('file:///r/packages/sdk/src/agent/agent.ts')).toBe('acp-kit SDK');
  });
});
