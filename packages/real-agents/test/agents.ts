/**
 * The published agents the suite runs, each pinned in this workspace's devDependencies, and how to
 * point each at the canned model server offline: its command line, its scratch home and the
 * environment it needs. `recipe` is the same setup in words and shell, for the docs page.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** One step of an offline recipe. */
export type RecipeStep = { text: string } | { code: string; lang: string; file?: string };

/** What a test needs to start one agent against a model server. */
export interface AgentSetup {
  /** The agent's command line (node and its entry script). */
  command: string[];
  env: NodeJS.ProcessEnv;
  /** A string in every process of this agent's environment, to find them in `/proc`. */
  marker: string;
  cleanup(): void;
}

/** One published agent. */
export interface AgentSpec {
  /** Short ID used in test names and the results file. */
  id: string;
  /** The npm package. */
  npm: string;
  /** The installed (pinned) version. */
  version: string;
  /** The model API it speaks. */
  api: 'openai-responses' | 'anthropic-messages';
  /** The `auth/login` method the agent requires before `session/new`, if any. */
  login?: string;
  /** How a host repeats this offline, for the docs page: prose (with `code` spans) and code blocks. */
  recipe: RecipeStep[];
  /** Scratch home, config and environment for one run against `origin` (`http://127.0.0.1:PORT`). */
  setup(origin: string, options?: { model?: string }): AgentSetup;
}

function packageVersion(name: string): string {
  const manifest = require.resolve(`${name}/package.json`);
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

function binOf(name: string): string {
  const manifest = require.resolve(`${name}/package.json`);
  const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: string | Record<string, string> }).bin;
  const entry = typeof bin === 'string' ? bin : Object.values(bin)[0]!;
  return join(dirname(manifest), entry);
}

/** The environment without anything that would send an agent to a real model or account. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(OPENAI|CODEX|ANTHROPIC|CLAUDE)_/.test(name)) delete env[name];
  }
  return env;
}

/** The model codex is told to use: a slug it knows (an unknown one makes it warn, live only). */
export const CODEX_MODEL = 'gpt-5.4-mini';

export const codexAcp: AgentSpec = {
  id: 'codex-acp',
  npm: '@zed-industries/codex-acp',
  version: packageVersion('@zed-industries/codex-acp'),
  api: 'openai-responses',
  recipe: [
    {
      text: 'A custom model provider in a scratch `CODEX_HOME` points codex at the canned server (codex refuses `wire_api = "chat"`). Use a model slug codex knows: an unknown one makes it stream a warning message that its `session/load` does not replay.',
    },
    {
      file: '$CODEX_HOME/config.toml',
      lang: 'toml',
      code: [
        `model = "${CODEX_MODEL}"`,
        'model_provider = "canned"',
        'approval_policy = "on-request"',
        'sandbox_mode = "read-only"',
        '',
        '[model_providers.canned]',
        'name = "canned"',
        'base_url = "http://127.0.0.1:PORT/v1"',
        'wire_api = "responses"',
        'env_key = "CANNED_API_KEY"',
      ].join('\n'),
    },
    {
      lang: 'sh',
      code: 'CODEX_HOME=/tmp/codex-home CANNED_API_KEY=x \\\n  npx acp-kit bridge --serve v2 --history ids.ndjson -- npx @zed-industries/codex-acp',
    },
    {
      text: 'The server answers `POST /v1/responses` with an SSE stream of Responses events (`response.created`, `response.output_item.done`, `response.output_text.delta`, `response.completed`). A `function_call` item `exec_command` with `sandbox_permissions: "require_escalated"` makes codex ask the client (`session/request_permission`); `apply_patch` edits a file (codex asks for that too).',
    },
  ],
  setup(origin, options = {}) {
    const home = mkdtempSync(join(tmpdir(), 'acp-kit-codex-home-'));
    writeFileSync(
      join(home, 'config.toml'),
      [
        `model = "${options.model ?? CODEX_MODEL}"`,
        'model_provider = "canned"',
        'approval_policy = "on-request"',
        'sandbox_mode = "read-only"',
        '',
        '[model_providers.canned]',
        'name = "canned"',
        `base_url = "${origin}/v1"`,
        'wire_api = "responses"',
        'env_key = "CANNED_API_KEY"',
        'request_max_retries = 0',
        'stream_max_retries = 0',
        '',
      ].join('\n'),
    );
    return {
      command: [process.execPath, binOf('@zed-industries/codex-acp')],
      // HOME is scratch too: codex runs commands in a login shell, and the machine's own profile
      // (here a pyenv hook that waits a minute on a stale lock) must not decide whether they finish.
      env: { ...cleanEnv(), HOME: home, CODEX_HOME: home, CANNED_API_KEY: 'x', RUST_LOG: 'error' },
      marker: `CODEX_HOME=${home}`,
      cleanup: () => rmSync(home, { recursive: true, force: true }),
    };
  },
};

function claudeSpec(id: string, npm: string): AgentSpec {
  return {
    id,
    npm,
    version: packageVersion(npm),
    api: 'anthropic-messages',
    recipe: [
      {
        text: 'Claude Code (inside the adapter) reads its endpoint and key from the environment; a scratch `HOME` keeps it away from your own settings and sessions. As root (a CI container), also set `IS_SANDBOX=1`: Claude Code refuses to start as root otherwise.',
      },
      {
        lang: 'sh',
        code: [
          'HOME=/tmp/claude-home ANTHROPIC_BASE_URL=http://127.0.0.1:PORT ANTHROPIC_API_KEY=x \\',
          '  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 \\',
          `  npx acp-kit bridge --serve v2 --history ids.ndjson -- npx ${npm}`,
        ].join('\n'),
      },
      {
        text: 'The server answers `POST /v1/messages` with an SSE stream of Messages events (`message_start`, `content_block_start`, `content_block_delta`, `message_delta`, `message_stop`); Claude Code also sends `HEAD /` and side requests without tools (title, command summaries), which any short text answers. A `Bash` tool_use makes the adapter ask the client; `Write` edits a file without asking.',
      },
    ],
    setup() {
      const home = mkdtempSync(join(tmpdir(), `acp-kit-${id}-home-`));
      mkdirSync(join(home, '.claude'), { recursive: true });
      return {
        command: [process.execPath, binOf(npm)],
        env: {},
        marker: `HOME=${home}`,
        cleanup: () => rmSync(home, { recursive: true, force: true }),
      };
    },
  };
}

const withAnthropic = (spec: AgentSpec): AgentSpec => ({
  ...spec,
  setup(origin) {
    const base = spec.setup(origin);
    const home = base.marker.slice('HOME='.length);
    return {
      ...base,
      env: {
        ...cleanEnv(),
        HOME: home,
        ANTHROPIC_BASE_URL: origin,
        ANTHROPIC_API_KEY: 'x',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
        // Claude Code refuses to start as root unless told it runs in a sandbox (CI containers do).
        IS_SANDBOX: '1',
      },
    };
  },
});

export const claudeAgentAcp = withAnthropic(
  claudeSpec('claude-agent-acp', '@zed-industries/claude-agent-acp'),
);
export const claudeCodeAcp = withAnthropic(claudeSpec('claude-code-acp', '@zed-industries/claude-code-acp'));

export const AGENTS: readonly AgentSpec[] = [codexAcp, claudeAgentAcp, claudeCodeAcp];
