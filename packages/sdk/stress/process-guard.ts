/**
 * Process-level watchdogs for reliability runs: counts uncaught exceptions and unhandled
 * rejections instead of dying on the first one, and detects prototype pollution by comparing the
 * built-in prototypes before and after.
 */

/** What the guard saw while installed. */
export interface GuardReport {
  crashes: number;
  unhandledRejections: number;
  /** Names of properties that appeared on (or vanished from) a built-in prototype, plus probe hits. */
  pollution: string[];
  samples: string[];
}

const PROTOTYPES: Array<[string, object]> = [
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype],
  ['String.prototype', String.prototype],
];

function ownNames(): Map<string, string> {
  return new Map(
    PROTOTYPES.map(([name, proto]) => [name, Reflect.ownKeys(proto).map(String).sort().join(',')]),
  );
}

/** Installs the handlers; `stop()` removes them and returns the report. */
export function guardProcess(): { stop(): GuardReport } {
  const report: GuardReport = { crashes: 0, unhandledRejections: 0, pollution: [], samples: [] };
  const before = ownNames();
  const onException = (error: unknown): void => {
    report.crashes++;
    if (report.samples.length < 5)
      report.samples.push(`uncaught: ${String((error as Error)?.stack ?? error)}`);
  };
  const onRejection = (error: unknown): void => {
    report.unhandledRejections++;
    if (report.samples.length < 5)
      report.samples.push(`unhandled rejection: ${String((error as Error)?.stack ?? error)}`);
  };
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return {
    stop(): GuardReport {
      process.off('uncaughtException', onException);
      process.off('unhandledRejection', onRejection);
      const after = ownNames();
      for (const [name, names] of before) if (after.get(name) !== names) report.pollution.push(name);
      const probe = {} as Record<string, unknown>;
      for (const key of ['polluted', 'toString']) {
        if (key === 'polluted' ? probe[key] !== undefined : typeof probe[key] !== 'function') {
          report.pollution.push(`({}).${key}`);
        }
      }
      return report;
    },
  };
}
