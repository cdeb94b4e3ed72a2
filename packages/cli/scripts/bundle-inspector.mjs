// Bundles the inspector web app (inspector-app/) into dist/inspector/: one ES module with every
// library in it (nothing is fetched from outside 127.0.0.1 at run time), a second one for the lint
// worker, its stylesheet and page.
import { copyFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const out = here('../dist/inspector/');
mkdirSync(out, { recursive: true });
const common = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
};
await build({ ...common, entryPoints: [here('../src/inspector-app/src/boot.ts')], outfile: `${out}app.js` });
// The transcript lint runs in a worker of its own, off the page's main thread.
await build({
  ...common,
  entryPoints: [here('../src/inspector-app/src/lint-worker.ts')],
  outfile: `${out}lint-worker.js`,
});
copyFileSync(here('../src/inspector-app/index.html'), `${out}index.html`);
copyFileSync(here('../src/inspector-app/app.css'), `${out}app.css`);
