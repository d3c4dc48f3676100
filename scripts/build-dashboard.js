// Bundles the dashboard's browser code (src/dashboard/client/) into dist/dashboard/client/,
// with the service's own reducer and selectors inside: run by `npm run build` and `prepare`,
// so an installed package serves it without a network or a build of its own.
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = `${root}dist/dashboard/client/`;

// The checks tell a built-in from a package by Node's list; the browser gets the same list.
const nodeModule = {
  name: 'node-module',
  setup(build) {
    build.onResolve({ filter: /^node:module$/ }, () => ({ path: 'node:module', namespace: 'builtins' }));
    build.onLoad({ filter: /.*/, namespace: 'builtins' }, () => ({ contents: `export const builtinModules = ${JSON.stringify(builtinModules)};`, loader: 'js' }));
  },
};

fs.mkdirSync(out, { recursive: true });
await esbuild.build({
  entryPoints: [`${root}src/dashboard/client/main.ts`],
  outfile: `${out}dashboard.js`,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
  define: { 'process.env.NODE_ENV': '"production"' },
  plugins: [nodeModule],
  logLevel: 'warning',
});
fs.copyFileSync(`${root}src/dashboard/client/dashboard.css`, `${out}dashboard.css`);
