/**
 * A copy of the built `acp-kit` command and everything it loads at run time, in a fresh folder
 * under the system temp directory that every user can read. Tests that drop privileges (run the
 * agent as `nobody`) start it from here, because the checkout itself may sit in a directory only
 * root can enter (a root user's home, or `mktemp -d`).
 */
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/** Folders a package never needs at run time (sources, native build inputs, tests). */
const SKIP_AT_PACKAGE_ROOT = new Set(['node_modules', 'src', 'deps', 'test', 'stress', 'bench', '.turbo']);
/** Native build intermediates: only the built `.node` file is loaded. */
const SKIP_ANYWHERE = new Set(['obj.target', '.deps']);
/** Dependencies used only while installing (better-sqlite3 fetches prebuilt binaries with it). */
const INSTALL_TIME_ONLY = new Set(['prebuild-install']);

interface Manifest {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** Finds where `name` resolves from `fromDir`, the way Node does: the nearest `node_modules` upwards. */
function locate(name: string, fromDir: string): string | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

/** Makes every folder enterable and every file readable by everyone (native modules stay executable). */
function openUp(path: string): void {
  const stats = statSync(path);
  if (stats.isDirectory()) {
    chmodSync(path, 0o755);
    for (const entry of readdirSync(path)) openUp(join(path, entry));
  } else {
    chmodSync(path, stats.mode | 0o444);
  }
}

/** A world-readable copy of `@acp-kit/cli` and its run-time dependency closure. */
export interface WorldReadableInstall {
  /** The copied `dist/bin.js`, to run with `node`. */
  readonly bin: string;
  /** The folder everything was copied into (a fine working directory for the child). */
  readonly root: string;
  cleanup(): void;
}

/** Copies the command at `packageDir` (the built `packages/cli`) and what it needs to run. */
export function worldReadableInstall(packageDir: string): WorldReadableInstall {
  const root = mkdtempSync(join(tmpdir(), 'acp-kit-world-readable-'));
  const copied = new Map<string, string>();
  const copy = (source: string, target: string): void => {
    copied.set(source, target);
    cpSync(source, target, {
      recursive: true,
      dereference: true,
      filter: (from) =>
        from === source ||
        (!SKIP_AT_PACKAGE_ROOT.has(from.slice(source.length + 1)) && !SKIP_ANYWHERE.has(basename(from))),
    });
    const manifest = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as Manifest;
    const names = Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies });
    for (const name of names) {
      const found = locate(name, source);
      if (INSTALL_TIME_ONLY.has(name)) continue;
      if (found === undefined || copied.has(found)) continue;
      // Flat, as npm installs it; a second version of the same name nests under its dependent.
      const flat = join(root, 'node_modules', name);
      copy(found, existsSync(flat) ? join(target, 'node_modules', name) : flat);
    }
  };
  const self = join(root, 'node_modules', '@acp-kit', 'cli');
  copy(realpathSync(packageDir), self);
  openUp(root);
  return {
    bin: join(self, 'dist', 'bin.js'),
    root,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
