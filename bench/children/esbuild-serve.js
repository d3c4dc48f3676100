// esbuild's own development server (`context().serve()`) over the page-load workspace: the
// compiler alone, with none of the service's work (no workspace read, no module builds, no
// checks, no join). The app's entry is bundled from the sources in one build, bare imports of the
// workspace's modules aliased to their entry files, with the development variant's output options
// (inline source maps, decorators lowered); the build starts at spawn, and the page's script and
// sheet are answered from it. argv[2]: the root; argv[3]: the JSON file mapping each module's
// specifier to its entry file (the app's is `@pl/app/main`). Prints `URL <url>` once it listens.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as esbuild from 'esbuild';

const root = path.resolve(process.argv[2]);
const entries = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
const { '@pl/app/main': appEntry, ...alias } = entries;
const servedir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-bench-esbuild-serve-'));
fs.writeFileSync(
  path.join(servedir, 'index.html'),
  '<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="/app.css"></head><body><script type="module" src="/app.js"></script></body></html>\n',
);

const context = await esbuild.context({
  absWorkingDir: root,
  entryPoints: [{ in: appEntry, out: 'app' }],
  outdir: servedir,
  bundle: true,
  alias,
  format: 'esm',
  platform: 'browser',
  sourcemap: 'inline',
  supported: { decorators: false },
  charset: 'utf8',
  logLevel: 'silent',
});
const built = context.rebuild(); // at spawn, as the service starts its builds at spawn
const { port } = await context.serve({ servedir, host: '127.0.0.1' });
process.stdout.write(`URL http://127.0.0.1:${port}/\n`);
await built;

const stop = () => context.dispose().then(() => {
  fs.rmSync(servedir, { recursive: true, force: true });
  process.exit(0);
}, () => process.exit(1));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
