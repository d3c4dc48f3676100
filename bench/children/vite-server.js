// A Vite dev server (programmatic `createServer`) over a copy of the example workspace.
// argv[2]: the root; argv[3]: a JSON file mapping the workspace's module specifiers to their
// entry files (absolute), so bare imports of other workspace modules resolve to their sources
// as they would through workspace links; argv[4] `bundled`: Vite's full-bundle dev mode
// (`experimental.bundledDev`). Prints `URL <url>` and `TOKEN <token>` once it listens.
import fs from 'node:fs';
import path from 'node:path';
import { createServer } from 'vite';

const root = path.resolve(process.argv[2]);
const entries = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));

const workspaceModules = {
  name: 'bench-workspace-modules',
  enforce: 'pre',
  resolveId(source) {
    return Object.hasOwn(entries, source) ? entries[source] : null;
  },
};

const server = await createServer({
  configFile: false,
  root,
  cacheDir: path.join(root, '.vite-cache'),
  logLevel: 'warn',
  clearScreen: false,
  plugins: [workspaceModules],
  optimizeDeps: { noDiscovery: true, include: [] },
  server: { host: '127.0.0.1', port: 0, strictPort: false },
  experimental: { bundledDev: process.argv[4] === 'bundled' },
});
await server.listen();
const address = server.httpServer.address();
process.stdout.write(`TOKEN ${server.config.webSocketToken ?? ''}\n`);
process.stdout.write(`URL http://127.0.0.1:${address.port}/\n`);

const stop = () => server.close().then(() => process.exit(0), () => process.exit(1));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
