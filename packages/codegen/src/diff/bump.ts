import type { DiffReport } from './change.js';

/** A changesets bump type, or none. */
export type Bump = 'none' | 'patch' | 'minor' | 'major';

const ORDER: Record<Bump, number> = { none: 0, patch: 1, minor: 2, major: 3 };

/** Whether `a` is at least `b`. */
export function bumpCovers(a: Bump, b: Bump): boolean {
  return ORDER[a] >= ORDER[b];
}

/** The larger of two bumps. */
export function maxBump(a: Bump, b: Bump): Bump {
  return ORDER[a] >= ORDER[b] ? a : b;
}

/**
 * The bump a report requires of a package at `version`. From 1.0.0: breaking → major, additive →
 * minor, editorial → patch. Below 1.0.0 the caret convention npm applies (`^0.3.0` accepts 0.3.x
 * only) is followed, so the minor digit is the breaking one: breaking → minor, additive and
 * editorial → patch. Leaving 0.x (a major bump to 1.0.0) stays a deliberate decision, never required.
 */
export function requiredBump(report: DiffReport, version: string): { bump: Bump; because?: string } {
  const major = Number.parseInt(version.split('.')[0] ?? '0', 10);
  const stable = Number.isFinite(major) && major >= 1;
  const first = (verdict: string) => report.changes.find((c) => c.verdict === verdict);
  const breaking = first('breaking');
  if (breaking !== undefined) return { bump: stable ? 'major' : 'minor', because: describe(breaking) };
  const additive = first('additive');
  if (additive !== undefined) return { bump: stable ? 'minor' : 'patch', because: describe(additive) };
  const editorial = first('editorial');
  if (editorial !== undefined) return { bump: 'patch', because: describe(editorial) };
  return { bump: 'none' };
}

function describe(change: DiffReport['changes'][number]): string {
  return `${change.verdict} ${change.subject} #${change.pointer}: ${change.reason}`;
}
