/**
 * The printed report of a stress run: one line per figure, `✗` before a broken invariant, and the
 * failure samples printed at the end.
 */
export class Figures {
  /** Names of the figures whose invariant broke. */
  readonly broken: string[] = [];
  /** Examples of failures, printed (the first dozen) when an invariant broke. */
  readonly samples: string[] = [];

  /** Prints one figure; `ok: false` marks it broken. */
  figure(name: string, value: string | number, ok = true): void {
    process.stdout.write(`${ok ? '  ' : '✗ '}${name}: ${value}\n`);
    if (!ok) this.broken.push(name);
  }

  /** Prints the broken invariants and samples and sets a failing exit code; false when none broke. */
  finish(): boolean {
    if (this.broken.length === 0) return false;
    process.stdout.write(`\nINVARIANTS BROKEN: ${this.broken.join('; ')}\n`);
    for (const sample of this.samples.slice(0, 12)) process.stdout.write(`  - ${sample}\n`);
    process.exitCode = 1;
    return true;
  }
}
