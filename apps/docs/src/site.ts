import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.ts';

/**
 * The repository the site links to ("Edit page", the header's GitHub link, source links).
 * Read from the root package.json's `repository` when it has one; DOCS_REPO_URL overrides it.
 */
function repositoryUrl(): string {
  if (process.env.DOCS_REPO_URL) return process.env.DOCS_REPO_URL.replace(/\/$/, '');
  const root = JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as {
    repository?: string | { url?: string };
  };
  const repo = typeof root.repository === 'string' ? root.repository : root.repository?.url;
  if (repo) return repo.replace(/^git\+/, '').replace(/\.git$/, '');
  return 'https://github.com/acp-kit/acp-kit';
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
