import { describe, expect, it } from 'vitest';
import { countPoisoned, fuzzConnection } from '../../stress/fuzz/fuzz-connection.js';
import { MUTATION_CLASSES } from '../../stress/fuzz/mutations.js';
import { guardProcess } from '../../stress/process-guard.js';

// CI size; `npm run stress` sends 100 000+ lines per side through the same code.
const LINES = 1800;

describe.each(['agent', 'client'] as const)('codec fuzzing of the %s connection', (side) => {
  it('answers every malformed line with the right code, never crashes, and still answers afterwards', async () => {
    const guard = guardProcess();
    const report = await fuzzConnection({ side, lines: LINES, seed: 20261130, sweepSeeds: 40 });
    const process = guard.stop();
    expect(process).toMatchObject({ crashes: 0, unhandledRejections: 0, pollution: [] });
    // Two known bugs are pinned by their own failing tests, not here: a __proto__ key in _meta
    // (prototype-keys.test.ts) and receipts lost when one report cannot be serialized and the agent
    // detaches the client — including other prompts' reports in flight (agent-echo.test.ts).
    const unrelated = report.samples.filter((s) => !s.includes('__proto__') && !s.includes('never reported'));
    expect(unrelated).toEqual([]);
    expect(report).toMatchObject({
      lines: LINES + report.swept,
      wrongCodes: 0,
      missingReplies: 0,
      diagnosticMismatches: 0,
      answersAfterStorm: true,
    });
    for (const cls of MUTATION_CLASSES) expect(report.byClass[cls]).toBeGreaterThanOrEqual(LINES / 10);
    expect(report.swept).toBeGreaterThan(1000);
    // Lines that cannot be decoded or parsed are always -32700, whatever they held.
    expect(Object.keys(report.outcomes.truncation)).toEqual(['-32700']);
    expect(Object.keys(report.outcomes['invalid-utf8'])).toEqual(['-32700']);
  });
});

describe('the fuzzer’s prototype-pollution check', () => {
  it('counts an object whose prototype came from a __proto__ key, but not a class instance or a null-prototype object', () => {
    class View {
      constructor(readonly text: string) {}
      get size(): number {
        return this.text.length;
      }
    }
    // Like the store's message views: a class prototype without its `constructor`.
    Reflect.deleteProperty(View.prototype, 'constructor');
    const polluted = JSON.parse('{"a":1}') as Record<string, unknown>;
    Object.setPrototypeOf(polluted, JSON.parse('{"polluted":"yes"}'));
    // What a merge that assigns a parsed `__proto__` member does.
    const assigned: Record<string, unknown> = {};
    const member = JSON.parse('{"__proto__":{"toString":"polluted"}}') as Record<string, unknown>;
    for (const key of Object.keys(member)) assigned[key] = member[key];
    expect(countPoisoned({ list: [polluted, { deep: assigned }] })).toBe(2);
    expect(countPoisoned({ views: [new View('x')], bare: Object.create(null), date: new Date(0) })).toBe(0);
  });
});
