import { relative, resolve } from 'node:path';
import { type CompatEmitterOptions, emitCompatConverters } from './emit/compat-converters.js';
import type { CompatModel } from './emit/compat-mapping-model.js';
import { buildCompatModel, readMapping } from './emit/compat-mapping.js';
import { type CompatUpdatesEmitterOptions, emitCompatUpdates } from './emit/compat-updates.js';
import type { EmittedFile } from './emit/emitted-file.js';
import { emitEntryIndex } from './emit/entry-index.js';
import { type StandardEmitterOptions, standardEmitters } from './emit/index.js';
import { displayPath } from './load/display-path.js';
import { loadSchema } from './load/load-schema.js';
import { buildModel } from './model/build-model.js';
import type { SchemaModel } from './model/model.js';
import { SchemaError } from './problems.js';
import { type WritePlan, applyWrite, isUpToDate, planWrite } from './write/writer.js';

/** How long one step of `generate` took. */
export interface StepTiming {
  readonly step: string;
  readonly ms: number;
}

/** Options of {@link generate}. */
export interface GenerateOptions extends StandardEmitterOptions {
  readonly schemaPath: string;
  readonly outDir: string;
  /** Report drift instead of writing. */
  readonly check?: boolean;
  /** Called after every step, e.g. to print it. */
  readonly onStep?: (timing: StepTiming) => void;
}

/** What {@link generate} did. */
export interface GenerateResult {
  readonly model: SchemaModel;
  readonly files: readonly EmittedFile[];
  readonly plan: WritePlan;
  /** In check mode: whether the output directory already matched. Otherwise always true. */
  readonly upToDate: boolean;
  readonly timings: readonly StepTiming[];
}

async function timed<T>(
  step: string,
  timings: StepTiming[],
  onStep: GenerateOptions['onStep'],
  run: () => T | Promise<T>,
): Promise<T> {
  const start = performance.now();
  const value = await run();
  const timing = { step, ms: Math.round((performance.now() - start) * 10) / 10 };
  timings.push(timing);
  onStep?.(timing);
  return value;
}

/** Emits every file for the model; pure apart from the emitters' CPU time. */
export async function emitAll(
  model: SchemaModel,
  options: StandardEmitterOptions = {},
): Promise<EmittedFile[]> {
  const files: EmittedFile[] = [];
  for (const emitter of standardEmitters(options)) files.push(...(await emitter.emit(model)));
  return [...files, ...entryIndex(model, files, options)];
}

function entryIndex(model: SchemaModel, files: readonly EmittedFile[], options: StandardEmitterOptions) {
  if (options.entryIndexDoc === undefined) return [];
  return emitEntryIndex(model, files, {
    runtimeModule: options.runtimeModule ?? '../validation-runtime.js',
    packageDoc: options.entryIndexDoc,
  });
}

/** Runs load → model → emitters → writer (or drift check). */
export async function generate(options: GenerateOptions): Promise<GenerateResult> {
  const timings: StepTiming[] = [];
  const { onStep } = options;
  const loaded = await timed('load', timings, onStep, () => loadSchema(options.schemaPath));
  const model = await timed('model', timings, onStep, () => buildModel(loaded));
  const files: EmittedFile[] = [];
  for (const emitter of standardEmitters(options)) {
    files.push(...(await timed(emitter.step, timings, onStep, () => emitter.emit(model))));
  }
  if (options.entryIndexDoc !== undefined) {
    files.push(
      ...(await timed('emit entry index', timings, onStep, () => entryIndex(model, files, options))),
    );
  }
  const sorted = [...files].sort((a, b) => a.path.localeCompare(b.path));
  const plan = await timed(options.check ? 'check' : 'write', timings, onStep, () =>
    options.check ? planWrite(options.outDir, sorted) : applyWrite(options.outDir, sorted),
  );
  return { model, files: sorted, plan, upToDate: options.check ? isUpToDate(plan) : true, timings };
}

/** Lists the drift a check found, one line per file, paths relative to the working directory. */
export function describeDrift(outDir: string, plan: WritePlan): string[] {
  const show = (path: string) => relative(process.cwd(), resolve(outDir, path)) || path;
  return [
    ...plan.created.map((p) => `missing (would be created): ${show(p)}`),
    ...plan.changed.map((p) => `out of date (would be rewritten): ${show(p)}`),
    ...plan.deleted.map((p) => `stray (would be deleted): ${show(p)}`),
  ];
}

/** Options of {@link generateCompat}. */
export interface GenerateCompatOptions extends CompatEmitterOptions, CompatUpdatesEmitterOptions {
  /** The conversion mapping, e.g. `schema/compat/v1-v2.json`. */
  readonly mappingPath: string;
  readonly v1SchemaPath: string;
  readonly v2SchemaPath: string;
  readonly outDir: string;
  /** Report drift instead of writing. */
  readonly check?: boolean;
  /** Called after every step, e.g. to print it. */
  readonly onStep?: (timing: StepTiming) => void;
}

/** Loads both schemas and the mapping, checking all three; throws a {@link SchemaError} listing every problem. */
export function loadCompat(
  options: Pick<GenerateCompatOptions, 'mappingPath' | 'v1SchemaPath' | 'v2SchemaPath'>,
): CompatModel {
  const v1 = buildModel(loadSchema(options.v1SchemaPath));
  const v2 = buildModel(loadSchema(options.v2SchemaPath));
  const read = readMapping(options.mappingPath);
  if (read.mapping === undefined) throw new SchemaError(read.problems);
  const built = buildCompatModel(read.mapping, displayPath(options.mappingPath), v1, v2);
  if (built.model === undefined) throw new SchemaError(built.problems);
  return built.model;
}

/** Runs load (both schemas and the mapping) → converter and update-table emitters → writer (or drift check). */
export async function generateCompat(
  options: GenerateCompatOptions,
): Promise<Omit<GenerateResult, 'model'> & { model: CompatModel }> {
  const timings: StepTiming[] = [];
  const { onStep } = options;
  const model = await timed('load compat', timings, onStep, () => loadCompat(options));
  const files = await timed('emit converters', timings, onStep, () => [
    ...emitCompatConverters(model, options),
    ...emitCompatUpdates(model, options),
  ]);
  const plan = await timed(options.check ? 'check' : 'write', timings, onStep, () =>
    options.check ? planWrite(options.outDir, files) : applyWrite(options.outDir, files),
  );
  return { model, files, plan, upToDate: options.check ? isUpToDate(plan) : true, timings };
}
