#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { API_UPDATE_COMMAND, runApiReport } from './api-report/run.js';
import { checkSchema } from './check-schema.js';
import { runDiff, runReleaseCheck, runReleaseNotes } from './diff/run-diff.js';
import type { OfficialNames } from './emit/official-aliases.js';
import { describeDrift, generate, generateCompat, loadCompat } from './generate.js';
import { SchemaError, formatProblem } from './problems.js';
import { runSizeCheck } from './size/run-size-check.js';

const USAGE = `usage:
  acp-kit-codegen generate --schema <schema.json> --out <dir> [--check] [--runtime-module <path>]
                           [--official-names <names.json>] [--entry-index <package doc>]
  acp-kit-codegen check-schema --schema <schema.json> [--examples <dir>] [--invalid <dir>]
  acp-kit-codegen compat --mapping <v1-v2.json> --v1 <schema.json> --v2 <schema.json> --out <dir> [--check]
                         [--v1-module <path>] [--v2-module <module>] [--custom-module <path>]
  acp-kit-codegen check-compat --mapping <v1-v2.json> --v1 <schema.json> --v2 <schema.json>
  acp-kit-codegen diff [<old> <new>] [--format text|json|markdown] [--editorial] [--fail-on-breaking]
                       <old>/<new>: a path, git:<ref>:<path>, or @acp-kit/schema@<version> (@acp-kit/v1-compat@<version>)
  acp-kit-codegen release-check [--root <repo>]
  acp-kit-codegen release-notes [--root <repo>]   (after changeset version)
  acp-kit-codegen size-check [--root <repo>] [--exceptions <file.json>]   (files over 600 lines, functions over 150)
  acp-kit-codegen api-report [--package <dir>] [--check]   (api/<entry>.api.md from the built .d.ts)`;

async function runGenerate(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      schema: { type: 'string' },
      out: { type: 'string' },
      check: { type: 'boolean', default: false },
      'runtime-module': { type: 'string' },
      'official-names': { type: 'string' },
      'entry-index': { type: 'string' },
    },
  });
  if (values.schema === undefined || values.out === undefined) {
    console.error(USAGE);
    return 2;
  }
  const runtimeModule = values['runtime-module'];
  const namesPath = values['official-names'];
  const officialNames =
    namesPath === undefined ? undefined : (JSON.parse(readFileSync(namesPath, 'utf8')) as OfficialNames);
  const entryIndexDoc = values['entry-index'];
  const result = await generate({
    ...(officialNames === undefined ? {} : { officialNames }),
    ...(entryIndexDoc === undefined ? {} : { entryIndexDoc }),
    schemaPath: values.schema,
    outDir: values.out,
    check: values.check,
    ...(runtimeModule === undefined ? {} : { runtimeModule }),
    onStep: ({ step, ms }) => console.log(`  ${step.padEnd(24)} ${ms.toFixed(1).padStart(8)} ms`),
  });
  if (values.check) {
    if (!result.upToDate) {
      console.error(`generated files are out of date with ${result.model.source}:`);
      for (const line of describeDrift(values.out, result.plan)) console.error(`  ${line}`);
      console.error('run `acp-kit-codegen generate` (npm run generate) and commit the result.');
      return 1;
    }
    console.log(`${result.files.length} generated files match ${result.model.source}`);
    return 0;
  }
  const { created, changed, deleted } = result.plan;
  console.log(
    `wrote ${created.length + changed.length} file(s), deleted ${deleted.length}, ${result.plan.unchanged.length} unchanged`,
  );
  return 0;
}

function runCheckSchema(args: string[]): number {
  const { values } = parseArgs({
    args,
    options: { schema: { type: 'string' }, examples: { type: 'string' }, invalid: { type: 'string' } },
  });
  if (values.schema === undefined) {
    console.error(USAGE);
    return 2;
  }
  const result = checkSchema({
    schemaPath: values.schema,
    ...(values.examples === undefined ? {} : { examplesDir: values.examples }),
    ...(values.invalid === undefined ? {} : { invalidDir: values.invalid }),
  });
  for (const problem of result.problems) console.error(formatProblem(problem));
  if (result.problems.length > 0) {
    console.error(`${result.problems.length} problem(s)`);
    return 1;
  }
  console.log(
    `schema ok; ${result.examplesChecked} example(s) valid, ${result.invalidChecked} invalid case(s) rejected`,
  );
  return 0;
}

const COMPAT_OPTIONS = {
  mapping: { type: 'string' },
  v1: { type: 'string' },
  v2: { type: 'string' },
  out: { type: 'string' },
  check: { type: 'boolean', default: false },
  'v1-module': { type: 'string' },
  'v2-module': { type: 'string' },
  'custom-module': { type: 'string' },
} as const;

async function runCompat(args: string[], checkOnly: boolean): Promise<number> {
  const { values } = parseArgs({ args, options: COMPAT_OPTIONS });
  const { mapping, v1, v2, out } = values;
  if (mapping === undefined || v1 === undefined || v2 === undefined || (!checkOnly && out === undefined)) {
    console.error(USAGE);
    return 2;
  }
  const paths = { mappingPath: mapping, v1SchemaPath: v1, v2SchemaPath: v2 };
  if (checkOnly || out === undefined) {
    const model = loadCompat(paths);
    console.log(
      `mapping ok; ${model.conversions.length} conversion(s) between ${model.v1.source} and ${model.v2.source}`,
    );
    return 0;
  }
  const modules = {
    ...(values['v1-module'] === undefined ? {} : { v1Module: values['v1-module'] }),
    ...(values['v2-module'] === undefined ? {} : { v2Module: values['v2-module'] }),
    ...(values['custom-module'] === undefined ? {} : { customModule: values['custom-module'] }),
  };
  const result = await generateCompat({
    ...paths,
    ...modules,
    outDir: out,
    check: values.check,
    onStep: ({ step, ms }) => console.log(`  ${step.padEnd(24)} ${ms.toFixed(1).padStart(8)} ms`),
  });
  if (values.check) {
    if (!result.upToDate) {
      console.error(`generated converters are out of date with ${result.model.source}:`);
      for (const line of describeDrift(out, result.plan)) console.error(`  ${line}`);
      console.error('run `acp-kit-codegen compat` (npm run generate) and commit the result.');
      return 1;
    }
    console.log(`${result.files.length} generated file(s) match ${result.model.source}`);
    return 0;
  }
  const { created, changed, deleted } = result.plan;
  console.log(`wrote ${created.length + changed.length} file(s), deleted ${deleted.length}`);
  return 0;
}

function runApiReportCommand(args: string[]): number {
  const { values } = parseArgs({
    args,
    options: { package: { type: 'string', default: '.' }, check: { type: 'boolean', default: false } },
  });
  const result = runApiReport({ packageDir: values.package, check: values.check });
  const summary = result.counts
    .map(
      (count) =>
        `${count.subpath} ${count.names}${count.undocumented > 0 ? ` (${count.undocumented} undocumented)` : ''}`,
    )
    .join(', ');
  for (const problem of result.problems) console.error(`${result.packageName}: ${problem}`);
  if (values.check && result.changed.length > 0) {
    for (const line of result.lines) console.error(line);
    console.error(
      `\n${result.packageName}: the public surface differs from its API report (${result.changed.join(', ')}).`,
    );
    console.error(
      `If the change is intended, run \`${API_UPDATE_COMMAND}\`, commit the reports, and let the diff drive the changeset's bump.`,
    );
    return 1;
  }
  for (const line of result.lines) console.log(line);
  if (result.problems.length > 0) return 1;
  console.log(
    `${result.packageName}: ${values.check ? 'surface matches api/' : 'api/ up to date'}: ${summary}`,
  );
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === 'generate') return await runGenerate(rest);
    if (command === 'check-schema') return runCheckSchema(rest);
    if (command === 'compat') return await runCompat(rest, false);
    if (command === 'check-compat') return await runCompat(rest, true);
    if (command === 'diff') return runDiff(rest, USAGE);
    if (command === 'release-check') return runReleaseCheck(rest);
    if (command === 'release-notes') return runReleaseNotes(rest);
    if (command === 'size-check') return runSizeCheck(rest);
    if (command === 'api-report') return runApiReportCommand(rest);
  } catch (error) {
    if (error instanceof SchemaError) {
      for (const problem of error.problems) console.error(formatProblem(problem));
      return 1;
    }
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
  console.error(USAGE);
  return 2;
}

process.exitCode = await main(process.argv.slice(2));
