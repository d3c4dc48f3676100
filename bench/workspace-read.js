// The workspace read alone (README "Workspaces"): `readWorkspace` through the service's reader
// (`onePassReader` over a new file-hash reader, as a start makes it), N times in one process, on
// the page-load workspace (bench/lib/workspaces.js `generatePageLoadWorkspace`, 1,001 modules).
// Prints the CPU of each read (process.cpuUsage, user + system) and the median [min-max].
//   node bench/workspace-read.js [N=15] [--dist DIR] [--packages P --modules M] [--model FILE] [--fresh] [--own] [--tsconfig]
// `--own`: the read's own code alone, over the listings and manifests taken into memory first.
// `--tsconfig`: the workspace with a root tsconfig.json extending a base one, as most monorepos
// have (each package's nearest).
// `--dist`: another build of the service (a base build, side by side); `--model`: writes the
// model of the last read, to compare two builds' models; `--fresh`: each read in a new process,
// as a start reads (code not yet compiled by V8), the CPU of the read alone. Run with
// `node --cpu-prof` to profile.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DIST } from './lib/paths.js';
import { generatePageLoadWorkspace } from './lib/workspaces.js';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  if (at === -1) return fallback;
  const value = args[at + 1];
  args.splice(at, 2);
  return value;
};
const dist = path.resolve(option('--dist', DIST));
const packages = Number(option('--packages', '100'));
const modulesPerPackage = Number(option('--modules', '10'));
const modelFile = option('--model', null);
const flag = (name) => {
  const at = args.indexOf(name);
  if (at !== -1) args.splice(at, 1);
  return at !== -1;
};
const fresh = flag('--fresh');
const own = flag('--own');
const withTsconfig = flag('--tsconfig');
const runs = Number(args[0] ?? 15);

const load = (relative) => import(pathToFileURL(path.join(dist, relative)).href);
const { readWorkspace } = await load('workspace/read-workspace.js');
const { onePassReader } = await load('io/workspace-reads.js');
const { createFileHashes } = await load('io/file-hashes.js');

const name = `${packages === 100 && modulesPerPackage === 10 ? 'page-load' : `workspace-read-${packages}x${modulesPerPackage}`}${withTsconfig ? '-tsconfig' : ''}`;
const { dir } = generatePageLoadWorkspace(name, { packages, modulesPerPackage, keep: true });
if (withTsconfig) {
  fs.writeFileSync(path.join(dir, 'tsconfig.base.json'), '{\n  // shared by every package\n  "compilerOptions": { "strict": true, "target": "es2022", "module": "esnext", "moduleResolution": "bundler", },\n}\n');
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ extends: './tsconfig.base.json', compilerOptions: { noEmit: true } }, null, 2));
}

// Every listing and every JSON file of the workspace, taken before the read: a reader without I/O.
function inMemory(root) {
  const listings = new Map();
  const texts = new Map();
  const pending = ['.'];
  while (pending.length > 0) {
    const dir = pending.pop();
    const entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true }).map((entry) => ({ name: entry.name, directory: entry.isDirectory() })).sort((a, b) => (a.name < b.name ? -1 : 1));
    listings.set(dir, { entries, hash: `${dir}:${entries.length}`, id: dir });
    for (const entry of entries) {
      const relative = dir === '.' ? entry.name : `${dir}/${entry.name}`;
      if (entry.directory) pending.push(relative);
      else if (entry.name.endsWith('.json')) texts.set(relative, { text: fs.readFileSync(path.join(root, relative), 'utf8'), hash: relative });
    }
  }
  return { readText: (file) => texts.get(file) ?? null, listDir: (dir) => listings.get(dir) ?? null, leaves: () => false, realPath: (file) => file };
}

const cpu = [];
let model;
if (fresh) {
  const self = fileURLToPath(import.meta.url);
  for (let run = 0; run < runs; run++) {
    const output = execFileSync(process.execPath, [self, '1', '--dist', dist, '--packages', String(packages), '--modules', String(modulesPerPackage), ...(own ? ['--own'] : []), ...(withTsconfig ? ['--tsconfig'] : [])], { encoding: 'utf8' });
    cpu.push(Number(/each: ([\d.]+)/.exec(output)[1]));
  }
}
for (let run = 0; run < (fresh ? 1 : runs); run++) {
  const hashes = own ? inMemory(dir) : createFileHashes(dir);
  const before = process.cpuUsage();
  model = readWorkspace(onePassReader(hashes), []);
  const used = process.cpuUsage(before);
  if (!fresh) cpu.push((used.user + used.system) / 1000);
}
const sorted = [...cpu].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)];
console.log(`${dist}: ${model.modules.length} modules, ${Object.keys(model.sources).length} sources, ${model.diagnostics.length} diagnostics`);
console.log(`read CPU ms${fresh ? ', each in a new process' : ''}: median ${median.toFixed(1)} [${sorted[0].toFixed(1)}-${sorted.at(-1).toFixed(1)}] of ${runs}; each: ${cpu.map((ms) => ms.toFixed(fresh || runs === 1 ? 1 : 0)).join(' ')}`);
if (modelFile) fs.writeFileSync(modelFile, JSON.stringify(model, null, 1));
