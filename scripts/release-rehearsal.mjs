#!/usr/bin/env node
// Release rehearsal: the packages as an outside developer gets them.
//
// In a scratch copy of the repository (the built packages, .changeset/ and the workspace
// manifests), version the packages with Changesets, add the schema change report to the schema
// packages' changelogs (acp-kit-codegen's release check), publish them with `changeset publish` to a
// local Verdaccio on 127.0.0.1 (temporary config and storage, a user created for the run), install
// them into an empty consumer project, and there:
//   - check every tarball carries README.md, CHANGELOG.md and the root LICENSE;
//   - load every entry point with ESM `import` and with CommonJS `require()`, and import one
//     exported schema file (`@acp-kit/schema/schema/v2/schema.json`) as JSON;
//   - type-check a small agent and client with strict settings and skipLibCheck: false, under
//     moduleResolution nodenext (plus a .cts file) and bundler, then run them against each other;
//   - run `npx acp-kit agent` under `npx acp-kit conformance`;
//   - run `npx acp-kit agent --history` without the optional SQLite package and expect the message;
//   - run `npx acp-kit demo` there too, and expect the message naming the missing package;
//   - separately, follow the getting-started page as written in another empty folder (tarballs
//     packed from this checkout, both examples, every command it shows: release-rehearsal/getting-started.mjs).
// Everything is bounded in time and removed afterwards. Run by `npm run check` (Turbo task
// `//#release:rehearsal`) after the packages are built; `node scripts/release-rehearsal.mjs` alone
// works too. Set ACP_KIT_REHEARSAL_KEEP=1 to keep the scratch folder for inspection.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { followGettingStarted } from './release-rehearsal/getting-started.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONSUMER_FILES = fileURLToPath(new URL('./release-rehearsal/consumer/', import.meta.url));
const NODE_MODULES = join(ROOT, 'node_modules');
const CHANGESET = join(NODE_MODULES, '@changesets', 'cli', 'bin.js');
const VERDACCIO = join(NODE_MODULES, 'verdaccio', 'bin', 'verdaccio');
const TSC = join(NODE_MODULES, 'typescript', 'bin', 'tsc');
/** The whole rehearsal; past this it stops, cleans up and fails. */
const OVERALL_LIMIT_MS = 25 * 60_000;
/** Any one step. */
const STEP_LIMIT_MS = 5 * 60_000;
/**
 * An `npm install` from the local registry, which fetches every third-party dependency through its
 * uplink: inside `npm run check`, beside every package's tests on two cores, one took over 5 min.
 */
const INSTALL_LIMIT_MS = 12 * 60_000;

const started = Date.now();
const children = new Set();
const keep = process.env.ACP_KIT_REHEARSAL_KEEP === '1';
const work = mkdtempSync(join(tmpdir(), 'acp-kit-release-rehearsal-'));
let registry;

function log(line) {
  process.stdout.write(`[rehearsal ${((Date.now() - started) / 1000).toFixed(1)}s] ${line}\n`);
}

function cleanup() {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
  if (keep) log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}

const overall = setTimeout(() => {
  process.stderr.write(`release rehearsal: gave up after ${OVERALL_LIMIT_MS / 60_000} minutes\n`);
  cleanup();
  process.exit(1);
}, OVERALL_LIMIT_MS);
overall.unref();

/** Runs a command to completion; rejects with its output when it fails or overruns. */
function run(
  command,
  args,
  { cwd, env = {}, expectFailure = false, echo = false, limitMs = STEP_LIMIT_MS } = {},
) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let output = '';
    const collect = (chunk) => {
      output += chunk;
      if (echo) process.stdout.write(chunk);
    };
    child.stdout.setEncoding('utf8').on('data', collect);
    child.stderr.setEncoding('utf8').on('data', collect);
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      const shown = `${command} ${args.join(' ')} (in ${cwd ?? process.cwd()})`;
      const failed = code !== 0;
      if (failed !== expectFailure) {
        reject(
          new Error(
            `${shown} ${failed ? `failed (${signal ?? code})` : 'succeeded but should have failed'}:\n${output}`,
          ),
        );
      } else resolve(output);
    });
  });
}

/** A free port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** The publishable workspace packages of the scratch copy. */
function packagesIn(root) {
  return readdirSync(join(root, 'packages'))
    .map((folder) => ({ folder, dir: join(root, 'packages', folder) }))
    .map((p) => ({ ...p, manifest: readJson(join(p.dir, 'package.json')) }))
    .filter((p) => !p.manifest.private);
}

/** 1. A scratch copy: what `changeset version` and `npm publish` read, and nothing of .git. */
function scratchCopy() {
  const repo = join(work, 'repo');
  mkdirSync(repo);
  for (const file of ['package.json', 'LICENSE', 'README.md']) cpSync(join(ROOT, file), join(repo, file));
  cpSync(join(ROOT, '.changeset'), join(repo, '.changeset'), { recursive: true });
  const skip = new Set(['node_modules', '.turbo', 'test', 'stress', 'bench', 'test-artifacts']);
  cpSync(join(ROOT, 'packages'), join(repo, 'packages'), {
    recursive: true,
    // Tarballs are left out too: a package's publint task (attw --pack) packs one into its folder and
    // removes it while this copy may run (a fresh-clone check failed on the vanished file).
    filter: (from) => !skip.has(from.split('/').at(-1)) && !from.endsWith('.tgz'),
  });
  // Private apps are versioned by nobody but must be seen, so that ignoring them is tested.
  for (const app of readdirSync(join(ROOT, 'apps'))) {
    mkdirSync(join(repo, 'apps', app), { recursive: true });
    cpSync(join(ROOT, 'apps', app, 'package.json'), join(repo, 'apps', app, 'package.json'));
  }
  // Changesets resolves its changelog generator from the repository; the copy has no node_modules
  // (npm must never reify one there), so it gets the generator's absolute path.
  const configPath = join(repo, '.changeset', 'config.json');
  const config = readJson(configPath);
  config.changelog = join(NODE_MODULES, '@changesets', 'cli', 'changelog');
  writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`);
  return repo;
}

/** 2. `changeset version`, then check what it did to versions and internal ranges. */
async function version(repo) {
  const before = Object.fromEntries(packagesIn(repo).map((p) => [p.manifest.name, p.manifest.version]));
  const docsBefore = readJson(join(repo, 'apps', 'docs', 'package.json')).version;
  await run(process.execPath, [CHANGESET, 'version'], { cwd: repo });
  const packages = packagesIn(repo);
  const versions = Object.fromEntries(packages.map((p) => [p.manifest.name, p.manifest.version]));
  log(
    `changeset version: ${packages.map((p) => `${p.manifest.name} ${before[p.manifest.name]} → ${p.manifest.version}`).join(', ')}`,
  );
  if (readJson(join(repo, 'apps', 'docs', 'package.json')).version !== docsBefore) {
    throw new Error('changeset version bumped the private docs app');
  }
  for (const p of packages) {
    for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies']) {
      for (const [name, range] of Object.entries(p.manifest[field] ?? {})) {
        if (name in versions && range !== `^${versions[name]}`) {
          throw new Error(`${p.manifest.name} ${field} ${name}: "${range}" is not "^${versions[name]}"`);
        }
      }
    }
  }
  return packages;
}

/**
 * 2b. The schema change report (acp-kit-codegen's release check, against the schema each schema
 * package was last released with) goes into that package's new CHANGELOG section, as it would in a
 * real release. It is computed from the repository (the scratch copy has no .git).
 */
async function schemaNotes(packages) {
  const codegen = await import(join(ROOT, 'packages', 'codegen', 'dist', 'index.js'));
  const check = codegen.checkRelease(ROOT);
  if (!check.ok)
    throw new Error(`schema release check failed:\n${codegen.describeReleaseCheck(check).join('\n')}`);
  for (const entry of check.reports) {
    const pkg = packages.find((p) => p.manifest.name === entry.pkg.name);
    if (pkg === undefined) throw new Error(`no package ${entry.pkg.name} in the scratch copy`);
    const path = join(pkg.dir, 'CHANGELOG.md');
    const before = readFileSync(path, 'utf8');
    const after = codegen.insertReleaseNotes(before, pkg.manifest.version, codegen.releaseNotes(entry));
    if (!after.includes('### Schema changes')) throw new Error(`${path}: schema notes not inserted`);
    writeFileSync(path, after);
    log(`${entry.pkg.name} CHANGELOG.md ${pkg.manifest.version}: schema changes against ${entry.baseline}`);
  }
}

/** 3. Verdaccio on 127.0.0.1 with a temporary config and storage; our scope is never proxied. */
async function startRegistry() {
  const dir = join(work, 'verdaccio');
  mkdirSync(dir);
  const port = await freePort();
  // Everything but our own scope comes from the registry npm is configured for, trusting the
  // certificates npm trusts (its `cafile`), also where Turbo's strict environment dropped
  // NODE_EXTRA_CA_CERTS.
  const npmConfig = async (key) => {
    const value = (await run('npm', ['config', 'get', key], { cwd: work })).trim();
    return value === 'null' || value === 'undefined' ? '' : value;
  };
  const [uplink, cafile] = await Promise.all([
    process.env.npm_config_registry || npmConfig('registry'),
    process.env.NODE_EXTRA_CA_CERTS ? '' : npmConfig('cafile'),
  ]);
  const config = [
    `storage: ${join(dir, 'storage')}`,
    'auth:',
    '  htpasswd:',
    `    file: ${join(dir, 'htpasswd')}`,
    'uplinks:',
    '  upstream:',
    `    url: ${uplink}`,
    '    timeout: 120s',
    // A loaded machine may see a slow answer or two; never take the uplink offline for that.
    '    max_fails: 50',
    '    fail_timeout: 2s',
    'packages:',
    "  '@acp-kit/*':",
    '    access: $all',
    '    publish: $authenticated',
    "  '**':",
    '    access: $all',
    '    publish: $authenticated',
    '    proxy: upstream',
    `listen: 127.0.0.1:${port}`,
    'log: { type: stdout, format: pretty, level: warn }',
    'publish:',
    '  allow_offline: true',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'config.yaml'), config);
  const child = spawn(process.execPath, [VERDACCIO, '--config', join(dir, 'config.yaml')], {
    cwd: dir,
    env: { ...process.env, ...(cafile ? { NODE_EXTRA_CA_CERTS: cafile } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}/`;
  for (let waited = 0; ; waited += 250) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited (${child.exitCode}):\n${output}`);
    const up = await fetch(`${url}-/ping`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (waited > 60_000) throw new Error(`verdaccio did not answer within 60 s:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  // A user for this run; its token is what `npm publish` authenticates with.
  const response = await fetch(`${url}-/user/org.couchdb.user:rehearsal`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'rehearsal', password: `pw-${process.pid}-${Date.now()}` }),
  });
  const { token } = await response.json();
  if (!response.ok || typeof token !== 'string')
    throw new Error(`could not create a registry user: ${response.status}`);
  const npmrc = join(dir, 'npmrc');
  writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
  log(`verdaccio ${readJson(join(NODE_MODULES, 'verdaccio', 'package.json')).version} on ${url}`);
  return {
    url,
    env: { npm_config_registry: url, NPM_CONFIG_USERCONFIG: npmrc, npm_config_update_notifier: 'false' },
  };
}

/** 4. `changeset publish`, with the registry and token from the environment (it has no --registry). */
async function publish(repo, packages) {
  const output = await run(process.execPath, [CHANGESET, 'publish', '--no-git-tag'], {
    cwd: repo,
    env: registry.env,
  });
  for (const p of packages) {
    const packument = await fetch(`${registry.url}${p.manifest.name.replace('/', '%2f')}`).then((r) =>
      r.json(),
    );
    if (!packument.versions?.[p.manifest.version]) {
      throw new Error(`${p.manifest.name}@${p.manifest.version} is not on the registry:\n${output}`);
    }
  }
  log(`changeset publish: ${packages.length} packages on the local registry`);
}

/** Packages the consumer installs: all but the compiler and the SQLite store (native build). */
const NOT_INSTALLED = new Set(['@acp-kit/codegen', '@acp-kit/history-sqlite']);

/** 5. What each published tarball holds: README, CHANGELOG and the repository's LICENSE. */
async function checkTarballs(packages) {
  const license = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
  for (const p of packages) {
    const [scope, name] = p.manifest.name.split('/');
    const tarball = join(work, 'verdaccio', 'storage', scope, name, `${name}-${p.manifest.version}.tgz`);
    const files = (await run('tar', ['-tzf', tarball], { cwd: work })).split('\n');
    for (const wanted of ['README.md', 'CHANGELOG.md', 'LICENSE', 'package.json']) {
      if (!files.includes(`package/${wanted}`))
        throw new Error(`${p.manifest.name}'s tarball has no ${wanted}`);
    }
    if ((await run('tar', ['-xzOf', tarball, 'package/LICENSE'], { cwd: work })) !== license) {
      throw new Error(`${p.manifest.name}'s LICENSE differs from the repository's`);
    }
  }
  log(`README.md, CHANGELOG.md and LICENSE in all ${packages.length} tarballs`);
}

/** 6. An empty consumer project that installs the packages like anyone would. */
async function consumer(packages) {
  const dir = join(work, 'consumer');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'rehearsal-consumer', private: true, type: 'module' }, null, 2)}\n`,
  );
  for (const file of readdirSync(CONSUMER_FILES)) cpSync(join(CONSUMER_FILES, file), join(dir, file));
  // The CLI's optional SQLite package (a native build) is left out on purpose: nothing here needs
  // it, and `agent --history` must then say how to get it.
  const installed = packages.filter((p) => !NOT_INSTALLED.has(p.manifest.name));
  const names = installed.map((p) => p.manifest.name);
  await run(
    'npm',
    [
      'install',
      '--omit=optional',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      ...names,
    ],
    {
      cwd: dir,
      env: registry.env,
      limitMs: INSTALL_LIMIT_MS,
    },
  );
  log(`npm install ${names.join(' ')} (--omit=optional) in an empty project`);
  return { dir, installed };
}

/** The file an `exports` entry points at for `import`. */
function importTarget(target) {
  if (typeof target === 'string') return target;
  return target.import ?? target.default;
}

/**
 * Every `exports` entry of the installed packages, as import specifiers, split in two: `plain`
 * entries load with the packages alone; `withPeer` entries import one of their package's optional
 * peer dependencies (found by reading the entry's file), which the install above left out.
 */
function entryPoints(dir, installed) {
  const plain = [];
  const withPeer = [];
  for (const p of installed) {
    const root = join(dir, 'node_modules', p.manifest.name);
    const manifest = readJson(join(root, 'package.json'));
    const peers = Object.entries(manifest.peerDependenciesMeta ?? {})
      .filter(([, meta]) => meta.optional)
      .map(([name]) => name);
    for (const key of Object.keys(manifest.exports)) {
      if (key.endsWith('.json') || key.includes('testing')) continue;
      const entry = key === '.' ? manifest.name : `${manifest.name}/${key.slice(2)}`;
      const text = readFileSync(join(root, importTarget(manifest.exports[key])), 'utf8');
      const peer = peers.find((name) => text.includes(`'${name}'`) || text.includes(`"${name}"`));
      if (peer === undefined) plain.push(entry);
      else withPeer.push({ entry, peer, range: manifest.peerDependencies[peer] });
    }
  }
  return { plain, withPeer };
}

/**
 * An entry that needs an optional peer: without it, loading fails naming the missing package (what
 * a user reads); with the peer installed as the entry's docs say, it loads.
 */
async function checkPeerEntries(dir, withPeer) {
  for (const { entry, peer } of withPeer) {
    const missing = await run(process.execPath, ['--input-type=module', '-e', `await import('${entry}')`], {
      cwd: dir,
      expectFailure: true,
    });
    if (!missing.includes(`Cannot find package '${peer}'`))
      throw new Error(`${entry} without ${peer} did not name it: ${missing}`);
    log(`import ${entry} without its optional peer ${peer}: fails naming ${peer}`);
  }
  const peers = [...new Set(withPeer.map(({ peer, range }) => `${peer}@${range}`))];
  if (peers.length === 0) return;
  // --omit=optional as above: the CLI's optional SQLite package stays out.
  const args = [
    'install',
    '--omit=optional',
    '--prefer-offline',
    '--no-audit',
    '--no-fund',
    '--no-package-lock',
  ];
  await run('npm', [...args, ...peers], {
    cwd: dir,
    env: registry.env,
    limitMs: INSTALL_LIMIT_MS,
  });
  log(`npm install ${peers.join(' ')} (the optional peers those entries name)`);
  const entries = JSON.stringify(withPeer.map(({ entry }) => entry));
  process.stdout.write(await run(process.execPath, ['imports.mjs', entries], { cwd: dir }));
}

async function main() {
  log(`scratch folder ${work}`);
  // Runs beside the registry steps; its failure is kept (not left unhandled) and thrown at the end.
  const fromCheckout = followGettingStarted({ root: ROOT, work, run, log }).then(
    () => undefined,
    (error) => error,
  );
  const repo = scratchCopy();
  const [packages, local] = await Promise.all([version(repo), startRegistry()]);
  registry = local;
  await schemaNotes(packages);
  await publish(repo, packages);
  const [, { dir, installed }] = await Promise.all([checkTarballs(packages), consumer(packages)]);
  const points = entryPoints(dir, installed);
  const entries = JSON.stringify(points.plain);

  const [imports, requires] = await Promise.all([
    run(process.execPath, ['imports.mjs', entries], { cwd: dir }),
    run(process.execPath, ['requires.cjs', entries], { cwd: dir }),
    run(process.execPath, [TSC, '-p', 'tsconfig.bundler.json'], { cwd: dir }),
    run(process.execPath, [TSC, '-p', 'tsconfig.nodenext.json'], { cwd: dir }),
  ]);
  process.stdout.write(imports + requires);
  await checkPeerEntries(dir, points.withPeer);
  const schemaId = await run(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "const { default: s } = await import('@acp-kit/schema/schema/v2/schema.json', { with: { type: 'json' } }); console.log(s.$id);",
    ],
    { cwd: dir },
  );
  // Node 20 warns on stderr that JSON modules are experimental; the printed $id is what counts.
  if (!schemaId.split('\n').includes('https://acp-kit.dev/schema/v2/schema.json'))
    throw new Error(`@acp-kit/schema/schema/v2/schema.json did not import: ${schemaId}`);
  log('import @acp-kit/schema/schema/v2/schema.json (with type json): its $id is the v2 schema');
  log('tsc (strict, skipLibCheck: false, moduleResolution bundler): agent.ts client.ts compile');
  log('tsc (strict, skipLibCheck: false, moduleResolution nodenext): agent.ts client.ts require.cts compile');

  log('node dist/client.js (starts node dist/agent.js):');
  process.stdout.write(await run(process.execPath, ['dist/client.js'], { cwd: dir }));
  log('node dist/require.cjs:');
  process.stdout.write(await run(process.execPath, ['dist/require.cjs'], { cwd: dir }));

  // The agent under test starts through npx for every scenario, so answers get a generous timeout.
  log('npx acp-kit conformance --timeout 60 -- npx acp-kit agent:');
  const npx = { cwd: dir, env: registry.env };
  const report = await run(
    'npx',
    [
      '--no-install',
      'acp-kit',
      'conformance',
      '--timeout',
      '60',
      '--',
      'npx',
      '--no-install',
      'acp-kit',
      'agent',
    ],
    npx,
  );
  process.stdout.write(report);

  const missing = await run(
    join(dir, 'node_modules', '.bin', 'acp-kit'),
    ['agent', '--history', join(dir, 'h.db')],
    {
      ...npx,
      expectFailure: true,
    },
  );
  // How to get it today: the tarball a checkout packs (the packages are not on the registry yet).
  const saysHow = (text) =>
    text.includes('@acp-kit/history-sqlite') && text.includes('npm run pack -- cli history-sqlite');
  if (!saysHow(missing)) {
    throw new Error(`agent --history without SQLite did not say how to install it:\n${missing}`);
  }
  log(`acp-kit agent --history without the optional package: ${missing.trim().split('\n')[0]}`);
  const demo = await run(join(dir, 'node_modules', '.bin', 'acp-kit'), ['demo'], {
    ...npx,
    expectFailure: true,
  });
  if (!demo.startsWith('acp-kit demo: ') || !saysHow(demo)) {
    throw new Error(`acp-kit demo without SQLite did not name the missing package:\n${demo}`);
  }
  log(`acp-kit demo without the optional package: ${demo.trim().split('\n')[0].slice(0, 120)}…`);
  const checkoutFailure = await fromCheckout;
  if (checkoutFailure !== undefined) throw checkoutFailure;
  log(`passed in ${((Date.now() - started) / 1000).toFixed(1)}s`);
}

main().then(
  () => {
    cleanup();
    clearTimeout(overall);
    process.exit(0);
  },
  (error) => {
    process.stderr.write(
      `release rehearsal failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    cleanup();
    process.exit(1);
  },
);
