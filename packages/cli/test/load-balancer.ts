import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The annotated nginx config the Remote agents guide shows; its ports are replaced at run time. */
export const NGINX_CONF = fileURLToPath(new URL('./scenarios/nginx-acp.conf', import.meta.url));
const NGINX = '/usr/sbin/nginx';

/** Debian's nginx, installed when missing (CI runs as root on a fresh machine). */
export function ensureNginx(): string {
  if (!existsSync(NGINX)) {
    execFileSync('sh', [fileURLToPath(new URL('../../../scripts/ensure-nginx.sh', import.meta.url))], {
      stdio: 'inherit',
    });
  }
  return NGINX;
}

/** A port nothing listens on right now (bound, read, released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts TCP connections on 127.0.0.1:`port`, or rejects when `child` exits. */
function accepting(port: number, child: ChildProcess, log: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    let done = false;
    const exited = (code: number | null): void => {
      done = true;
      reject(new Error(`nginx exited (${code}) before listening: ${log()}`));
    };
    child.once('exit', exited);
    const attempt = (): void => {
      if (done) return;
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        done = true;
        child.off('exit', exited);
        resolve();
      });
      socket.once('error', () => setTimeout(attempt, 25));
    };
    attempt();
  });
}

/** nginx running as a child process of the test. */
export interface Nginx {
  /** `http://127.0.0.1:<port>/acp` through nginx. */
  url: string;
  /** Stops nginx (SIGTERM, then SIGKILL after 5 s) and resolves once it exited. */
  stop(): Promise<void>;
}

/**
 * Starts nginx in the foreground (`daemon off;`) with the guide's config, its replica ports
 * 8401–8403 and its own port 8400 replaced, every file inside `dir`.
 */
export async function startNginx(dir: string, replicaPorts: readonly number[]): Promise<Nginx> {
  const binary = ensureNginx();
  const port = await freePort();
  let conf = readFileSync(NGINX_CONF, 'utf8').replaceAll('127.0.0.1:8400;', `127.0.0.1:${port};`);
  replicaPorts.forEach((replica, i) => {
    conf = conf.replaceAll(`127.0.0.1:${8401 + i} `, `127.0.0.1:${replica} `);
    conf = conf.replaceAll(`127.0.0.1:${8401 + i};`, `127.0.0.1:${replica};`);
  });
  const file = join(dir, 'nginx.conf');
  writeFileSync(file, conf);
  const child = spawn(binary, ['-p', `${dir}/`, '-c', file, '-e', join(dir, 'error.log')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (text: string) => {
    stderr += text;
  });
  const stop = (): Promise<void> =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const force = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      child.kill('SIGTERM');
    });
  try {
    await accepting(port, child, () => stderr);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${port}/acp`, stop };
}
