import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateToken, validateToken } from '@acp-kit/sdk';
import { UsageError } from '../usage-error.js';

/** Environment variable that supplies the connection token to `acp-kit agent --listen`. */
export const TOKEN_ENV = 'ACP_KIT_TOKEN';

/** Where the agent's token came from, and where a client can read it. */
export interface TokenSource {
  token: string;
  /** A file holding the token, readable by its owner only; absent when the token came from the environment. */
  file?: string;
  /** Removes what this process created (the temporary token folder). */
  cleanup(): void;
}

/**
 * Why the token file is not private to the user running acp-kit (its owner can always read or
 * chmod it; others must have no access), or undefined when it is.
 */
function notPrivate(path: string): string | undefined {
  const stat = statSync(path);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    return `token file ${path} belongs to user ${stat.uid}, not to you (user ${uid}): whoever owns it can read or replace the token; use a token file you own (chown it, or let acp-kit create a new one)`;
  }
  if ((stat.mode & 0o077) !== 0) {
    return `token file ${path} can be read by other users (mode ${(stat.mode & 0o777).toString(8)}); run chmod 600 on it`;
  }
  return undefined;
}

function readTokenFile(path: string): string {
  const why = notPrivate(path);
  if (why !== undefined) throw new UsageError(why);
  try {
    return validateToken(readFileSync(path, 'utf8').trim());
  } catch (error) {
    throw new UsageError(`token file ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function writeTokenFile(path: string, token: string): void {
  // 'wx' refuses to follow or overwrite anything already there (a planted symlink included).
  writeFileSync(path, `${token}\n`, { mode: 0o600, flag: 'wx' });
}

/**
 * The connection token for `--listen`: from `ACP_KIT_TOKEN`, else from `--token-file` when that
 * file exists, else a fresh random one written to `--token-file` or to a new private temporary
 * folder. Never on the command line, where every local user could read it in `ps`.
 */
export function resolveToken(
  tokenFile: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): TokenSource {
  const fromEnv = env[TOKEN_ENV];
  if (fromEnv !== undefined && fromEnv !== '') {
    if (tokenFile !== undefined) throw new UsageError(`use either ${TOKEN_ENV} or --token-file, not both`);
    try {
      return { token: validateToken(fromEnv.trim()), cleanup: () => {} };
    } catch (error) {
      throw new UsageError(`${TOKEN_ENV}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (tokenFile !== undefined) {
    let exists = true;
    try {
      statSync(tokenFile);
    } catch {
      exists = false;
    }
    if (exists) return { token: readTokenFile(tokenFile), file: tokenFile, cleanup: () => {} };
    const token = generateToken();
    writeTokenFile(tokenFile, token);
    // Kept after exit, so a restarted agent keeps the token its clients already hold.
    return { token, file: tokenFile, cleanup: () => {} };
  }
  // mkdtemp creates the folder 0700: nobody else can even list it.
  const dir = mkdtempSync(join(tmpdir(), 'acp-kit-agent-'));
  const file = join(dir, 'token');
  const token = generateToken();
  writeTokenFile(file, token);
  return { token, file, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
