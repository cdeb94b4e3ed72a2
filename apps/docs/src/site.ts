import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.ts';

/**
 * The repository the site links to ("Edit page", the header's GitHub link, source links).
 * Read from the `repository` field of the root or the SDK's package.json; DOCS_REPO_URL overrides it.
 */
function repositoryUrl(): string {
  if (process.env.DOCS_REPO_URL) return process.env.DOCS_REPO_URL.replace(/\/$/, '');
  // The root package.json first; otherwise the SDK's, whose `repository` is what npm shows.
  for (const manifest of ['package.json', 'packages/sdk/package.json']) {
    const json = JSON.parse(readFileSync(join(repoRoot(), manifest), 'utf8')) as {
      repository?: string | { url?: string };
    };
    const repo = typeof json.repository === 'string' ? json.repository : json.repository?.url;
    if (repo) return repo.replace(/^git\+/, '').replace(/\.git$/, '');
  }
  throw new Error('no repository URL in package.json or packages/sdk/package.json; set DOCS_REPO_URL');
}

export const REPOSITORY_URL = repositoryUrl();
/** The branch "Edit page" links point at. */
export const DEFAULT_BRANCH = process.env.DOCS_REPO_BRANCH ?? 'main';

/** Where the protocol rules come from: the RFD this kit implements, and upstream's v2 pages. */
export const SOURCES = {
  rfd: 'https://agentclientprotocol.com/rfds/v2/prompt',
  rfdRepo: 'https://github.com/agentclientprotocol/agent-client-protocol/blob/main/docs/rfds/v2/prompt.mdx',
  messageUpdatesRfd: 'https://agentclientprotocol.com/rfds/v2/message-updates',
  resumeReplayRfd: 'https://agentclientprotocol.com/rfds/v2/session-resume-replay',
  v2: 'https://agentclientprotocol.com/protocol/v2/overview',
  v2PromptLifecycle: 'https://agentclientprotocol.com/protocol/v2/prompt-lifecycle',
  v2Cancellation: 'https://agentclientprotocol.com/protocol/v2/cancellation',
  v2SessionSetup: 'https://agentclientprotocol.com/protocol/v2/session-setup',
  v2Migration: 'https://agentclientprotocol.com/protocol/v2/migration',
  v2Extensibility: 'https://agentclientprotocol.com/protocol/v2/extensibility',
  upstreamRepo: 'https://github.com/agentclientprotocol/agent-client-protocol',
} as const;

/**
 * The absolute URL the site is published at (no trailing slash): DOCS_SITE_URL, or the `homepage`
 * of the SDK's package.json. The sitemap, `llms.txt` and canonical links are written under it.
 */
function siteUrl(): string {
  if (process.env.DOCS_SITE_URL) return process.env.DOCS_SITE_URL.replace(/\/$/, '');
  const sdk = JSON.parse(readFileSync(join(repoRoot(), 'packages/sdk/package.json'), 'utf8')) as {
    homepage?: string;
  };
  if (!sdk.homepage) throw new Error('no homepage in packages/sdk/package.json; set DOCS_SITE_URL');
  return sdk.homepage.replace(/\/$/, '');
}

export const SITE_URL = siteUrl();
