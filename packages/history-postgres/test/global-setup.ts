import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { startThrowawayPostgres } from '../src/testing/index.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of the throwaway server's `postgres` database. */
    postgresUrl: string;
  }
}

const ENSURE = fileURLToPath(new URL('../../../scripts/ensure-postgres.sh', import.meta.url));

/**
 * Starts one throwaway PostgreSQL server for the test run and removes it afterwards. Debian's
 * `postgresql` package is installed first when no server binaries are found (CI runs as root on a
 * fresh machine). Set ACP_KIT_TEST_POSTGRES_URL to use a server of your own instead; tests only
 * create uniquely named schemas and databases in it.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const external = process.env.ACP_KIT_TEST_POSTGRES_URL;
  if (external) {
    project.provide('postgresUrl', external);
    return undefined;
  }
  const bindir = execFileSync('sh', [ENSURE], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  const server = await startThrowawayPostgres({ bindir });
  project.provide('postgresUrl', server.url);
  return () => server.stop();
}
