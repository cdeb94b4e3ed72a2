// The getting-started page, followed as written: a step of the release rehearsal.
//
// Reads apps/docs/src/content/docs/getting-started.mdx itself (not a copy of it) and, in an empty
// folder:
//   - runs its setup block (the ```sh block titled "from an empty folder") with `sh -e`, except the
//     clone-and-build line, for which this checkout stands in: `scripts/pack.mjs` packs it into
//     <folder>/acp-kit/packs, where the block's `cd acp-kit && … npm run pack && cd ..` would have;
//   - saves the examples the page shows (`<Code code={…} title="first-agent.ts" />`, from the files
//     it imports with `?raw`) under their titles in the project the block made;
//   - runs every command line of the page's later ```sh blocks there, in order (the one that serves
//     until stopped, `--listen`, excepted), each of which must exit 0; the output the page prints
//     after `npx tsx first-client.ts` must match, message IDs aside.
// npm's own settings come from the environment (no audit, prefer the cache), never from the text.
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The lines of the setup block that only a developer without this checkout runs. */
const CHECKOUT_LINES = [
  'git clone https://github.com/acp-kit/acp-kit.git',
  'cd acp-kit && npm ci && npm run generate && npm run build && npm run pack && cd ..',
];

/** The fenced code blocks of a Markdown/MDX text, in order. */
export function codeBlocks(text) {
  const blocks = [];
  for (const match of text.matchAll(/^```(\w*)([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm)) {
    blocks.push({ lang: match[1], meta: match[2].trim(), body: match[3], index: match.index });
  }
  return blocks;
}

/** A block's command lines: comments and blank lines dropped, trailing `# …` comments cut. */
export function commandLines(body) {
  return body
    .split('\n')
    .map((line) => line.replace(/\s+#\s.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** The example files the page shows with `<Code code={x} title="name" />`, imported `?raw`. */
function examples(text, pagePath) {
  const sources = new Map();
  for (const match of text.matchAll(/^import (\w+) from '([^']+)\?raw';$/gm))
    sources.set(match[1], resolve(dirname(pagePath), match[2]));
  const files = [];
  for (const match of text.matchAll(/<Code code=\{(\w+)\}[^>]*title="([^"]+)"/g)) {
    const source = sources.get(match[1]);
    if (source === undefined)
      throw new Error(`getting started: <Code code={${match[1]}}> has no ?raw import`);
    files.push({ name: match[2], source });
  }
  return files;
}

/** The `text` block the page prints right after `command`, as a pattern with message IDs left open. */
function expectedOutput(blocks, after) {
  const next = blocks.find((block) => block.index > after.index);
  if (next?.lang !== 'text') return undefined;
  const literal = (line) => line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const lines = next.body.trimEnd().split('\n');
  return new RegExp(lines.map((line) => literal(line).replace(/msg_\S+/g, 'msg_\\S+')).join('\n'));
}

/**
 * Follows the getting-started page in `work`/getting-started. `run(command, args, { cwd, env })`
 * runs one process to completion and resolves with its output (rejecting on a non-zero exit).
 */
export async function followGettingStarted({ root, work, run, log }) {
  const pagePath = join(root, 'apps', 'docs', 'src', 'content', 'docs', 'getting-started.mdx');
  const text = readFileSync(pagePath, 'utf8');
  const blocks = codeBlocks(text);
  const setup = blocks.find((block) => block.lang === 'sh' && block.meta === 'title="from an empty folder"');
  if (setup === undefined) throw new Error('getting started: no ```sh title="from an empty folder" block');
  const lines = commandLines(setup.body);
  if (lines.slice(0, CHECKOUT_LINES.length).join('\n') !== CHECKOUT_LINES.join('\n')) {
    throw new Error(
      `getting started: the setup block no longer starts with the clone-and-build lines this check ` +
        `stands in for:\n${CHECKOUT_LINES.join('\n')}\n(scripts/release-rehearsal/getting-started.mjs)`,
    );
  }
  const folder = join(work, 'getting-started');
  mkdirSync(folder);
  const env = {
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_prefer_offline: 'true',
    npm_config_update_notifier: 'false',
  };
  await run(
    process.execPath,
    [join(root, 'scripts', 'pack.mjs'), '--out', join(folder, 'acp-kit', 'packs')],
    {
      cwd: root,
    },
  );
  log('getting started: this checkout packed into acp-kit/packs (for the clone-and-build line)');

  const rest = lines.slice(CHECKOUT_LINES.length);
  // The page's installs compile better-sqlite3 from source (about two minutes on an idle machine,
  // seven seen beside the rest of \`npm run check\`): this step gets longer than the others.
  await run('sh', ['-e', '-x', '-c', rest.join('\n')], { cwd: folder, env, limitMs: 15 * 60_000 });
  const project = /^mkdir (\S+) && cd \1$/.exec(rest[0] ?? '')?.[1];
  if (project === undefined)
    throw new Error(`getting started: expected "mkdir <project> && cd <project>", got "${rest[0]}"`);
  const dir = join(folder, project);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  log(
    `getting started: the setup block in an empty folder; ${project}/package.json has type ${manifest.type}, ` +
      `dependencies ${Object.keys(manifest.dependencies ?? {}).join(' ')}, devDependencies ${Object.keys(manifest.devDependencies ?? {}).join(' ')}`,
  );
  if (manifest.devDependencies?.['@acp-kit/cli'] === undefined)
    throw new Error('getting started: the setup block does not put @acp-kit/cli in devDependencies');

  const files = examples(text, pagePath);
  for (const file of files) cpSync(file.source, join(dir, file.name));
  log(`getting started: saved ${files.map((file) => file.name).join(', ')}`);

  for (const block of blocks.filter((b) => b.lang === 'sh' && b.index > setup.index)) {
    for (const line of commandLines(block.body)) {
      if (line.includes('--listen')) continue;
      const output = await run('sh', ['-e', '-c', line], { cwd: dir, env });
      const expected = expectedOutput(blocks, block);
      if (expected !== undefined && !expected.test(output))
        throw new Error(`getting started: ${line} printed\n${output}\nnot what the page shows:\n${expected}`);
      const last = output.trim().split('\n').at(-1) ?? '';
      log(`getting started: ${line} → ${last.length > 100 ? `${last.slice(0, 100)}…` : last}`);
    }
  }
}
