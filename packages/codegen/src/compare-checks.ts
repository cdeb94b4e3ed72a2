/** A boolean validator: a generated check, or an Ajv validate function. */
export type Decide = (value: unknown) => boolean;

/** Values a mutation puts in place of a property or item: every JSON type, and strings a tag switch must not take. */
const REPLACEMENTS: readonly unknown[] = [
  null,
  0,
  -1,
  1.5,
  70000,
  '',
  'x',
  '_x',
  'zzz_unknown',
  true,
  [],
  {},
  [{}],
];

/** `root` itself and every value reachable from it by deleting, replacing or adding one property or array item. */
export function* oneStepMutations(root: unknown): Generator<unknown> {
  function* at(value: unknown, rebuild: (replacement: unknown) => unknown): Generator<unknown> {
    for (const replacement of REPLACEMENTS) yield rebuild(replacement);
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i += 1) {
        yield rebuild(value.filter((_, j) => j !== i));
        yield* at(value[i], (r) => rebuild(value.map((item, j) => (j === i ? r : item))));
      }
    } else if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const { [key]: _dropped, ...rest } = record;
        yield rebuild(rest);
        yield* at(record[key], (r) => rebuild({ ...record, [key]: r }));
      }
      yield rebuild({ ...record, _extra: 1 });
    }
  }
  yield root;
  yield* at(root, (replacement) => replacement);
}

/** Outcome of {@link compareChecks}. */
export interface ChecksComparison {
  /** How many (definition, value) pairs were decided both ways. */
  readonly compared: number;
  /** One line per pair the two decided differently, naming the definition and the value. */
  readonly disagreements: string[];
}

/**
 * Decides every case, and every one-step mutation of it, with both the generated fast check and
 * the Ajv validator of its definition (and each case's value against every other definition), and
 * lists where they differ. The generated `checks.ts` must decide exactly as `validators.ts`.
 */
export function compareChecks(
  checks: Readonly<Record<string, Decide>>,
  validators: Readonly<Record<string, Decide>>,
  cases: readonly { readonly definition: string; readonly value: unknown }[],
): ChecksComparison {
  const disagreements: string[] = [];
  let compared = 0;
  const decide = (definition: string, value: unknown) => {
    const check = checks[definition];
    const ajv = validators[definition];
    if (check === undefined || ajv === undefined) {
      disagreements.push(`${definition}: no ${check === undefined ? 'check' : 'validator'}`);
      return;
    }
    compared += 1;
    const fast = check(value);
    if (fast !== ajv(value)) {
      disagreements.push(`${definition}: check ${fast}, Ajv ${!fast} for ${JSON.stringify(value)}`);
    }
  };
  for (const definition of Object.keys(validators)) for (const c of cases) decide(definition, c.value);
  for (const c of cases) for (const value of oneStepMutations(c.value)) decide(c.definition, value);
  return { compared, disagreements };
}
