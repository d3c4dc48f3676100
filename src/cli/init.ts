// `core init [DIR]`: a new workspace from the template. Parses the arguments and prints;
// src/init/ does the work.
import path from 'node:path';
import { parseCommandLine } from './command-line.js';
import { DirectoryNotEmpty, initWorkspace, NotADirectory } from '../init/init-workspace.js';
import { PACKAGE_ROOT } from '../package-files.js';
import { UsageError } from './usage-error.js';

export const INIT_HELP = `Usage: core init [DIR]

Creates a workspace in DIR (default: the current directory), which must be empty or
missing (a lone .git directory is allowed). The workspace holds one package at version
0.1.0 with one module: a custom element built from web standards, no framework, no
stylesheet. Its name, the package scope and the element's name prefix come from the
directory's name ("my-site" gives @my-site/app/main and <my-site-greeting>): letters lose
their marks ("ünïcode" gives @unicode), anything else but a-z and 0-9 becomes a hyphen, and
the name starts with a letter ("my-workspace" when nothing is left).

  core.json                        the workspace: packages, the module the preview opens
  package.json                     devDependency on @core-js/packages; npm start runs core run
  packages/app/package.json        the package: exports ./main
  packages/app/main/index.ts       the module
  packages/app/main/module.json    its platforms

The manifests name their JSON Schemas in "$schema" (node_modules/@core-js/packages/schemas/),
so editors complete and check them once npm install has run.

Exit codes: 0 created; 1 DIR is not empty or is a file (nothing is written); 2 wrong usage.
`;

export async function initCommand(args: string[]): Promise<number> {
  const { positionals } = parseCommandLine({ args, options: {}, allowPositionals: true, strict: true });
  if (positionals.length > 1) throw new UsageError(`name one directory; got ${positionals.length}`);
  let result;
  try {
    result = initWorkspace(positionals[0] ?? process.cwd());
  } catch (error) {
    if (!(error instanceof DirectoryNotEmpty) && !(error instanceof NotADirectory)) throw error;
    process.stderr.write(`core init: ${error.message}\n`);
    return 1;
  }
  const shown = path.relative(process.cwd(), result.dir);
  process.stdout.write(`created the workspace ${result.name} in ${shown || '.'} (${result.files.length} files)\n\nNext:\n${nextSteps(shown).map((step) => `  ${step}\n`).join('')}`);
  return 0;
}

// The steps in the order they work. A copy of this package that was not installed from a
// registry (a clone, a tarball unpacked by hand) is not published there either, so the
// workspace installs this copy: that one command also installs everything else, and a plain
// `npm install` first would fail on the registry (README "core init").
export function nextSteps(shownDir: string, packageRoot = PACKAGE_ROOT): string[] {
  const steps: string[] = [];
  if (shownDir) steps.push(`cd ${shellWord(shownDir)}`);
  if (installedFromRegistry(packageRoot)) steps.push('npm install');
  else steps.push(`npm install --save-dev ${shellWord(packageRoot.replace(/[\\/]+$/, ''))}    # this copy of @core-js/packages, not on the registry`);
  steps.push('npm start    # the preview at http://127.0.0.1:4800/preview/');
  return steps;
}

const installedFromRegistry = (packageRoot: string) => path.basename(path.dirname(path.dirname(path.resolve(packageRoot)))) === 'node_modules';

const shellWord = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
