import { expect } from 'chai';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isExportDeclaration, isImportDeclaration, isLiteralTypeNode, isStringLiteral, SyntaxKind } from 'typescript/unstable/ast';
import { tempWorkspace } from '../helpers/workspace.js';
import { toPosix, withProgram } from './program.js';

// ARCHITECTURE.md "Layers": the table there is the one list of allowed imports; this test
// reads it, so the document and the check cannot disagree.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Layer {
  /** The row's first cell, as written. */
  readonly name: string;
  /** `src/x/` (a folder, and everything under it) or `src/x.ts`. */
  readonly paths: readonly string[];
  readonly everything: boolean;
  /** Paths of layers it may import anything of. */
  readonly values: readonly string[];
  /** Paths of layers it may import types of (`import type`, `export type`, `import('x').T`). */
  readonly types: readonly string[];
}

interface Import {
  readonly from: string;
  readonly to: string;
  readonly typeOnly: boolean;
}

const quoted = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

function parseLayerTable(markdown: string): Layer[] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Layers\n'));
  if (!section) throw new Error('ARCHITECTURE.md has no "Layers" section');
  const rows = section.split('\n').filter((line) => line.startsWith('|')).slice(2);
  return rows.map((row) => {
    const [name = '', , mayImport = ''] = row.split('|').slice(1, -1).map((cell) => cell.trim());
    const values: string[] = [];
    const types: string[] = [];
    let everything = false;
    for (const entry of mayImport.split(',').map((part) => part.trim())) {
      if (entry === 'everything') everything = true;
      else if (entry !== 'nothing') {
        const [path, ...rest] = quoted(entry);
        const kind = entry.replace(/`[^`]+`/, '').trim();
        if (!path || rest.length > 0 || (kind !== '' && kind !== 'types')) throw new Error(`ARCHITECTURE.md "Layers": cannot read "${entry}" in the row of ${name}`);
        (kind === 'types' ? types : values).push(`src/${path}`);
      }
    }
    return { name, paths: quoted(name), everything, values, types };
  });
}

const owns = (path: string, file: string) => (path.endsWith('/') ? file.startsWith(path) : file === path);

/** The row of the longest path that holds the file (`src/x/y/` before `src/x/`). */
function layerOf(layers: readonly Layer[], file: string): Layer | undefined {
  let best: { layer: Layer; length: number } | undefined;
  for (const layer of layers) {
    for (const path of layer.paths) if (owns(path, file) && path.length > (best?.length ?? -1)) best = { layer, length: path.length };
  }
  return best?.layer;
}

function forbiddenImports(layers: readonly Layer[], imports: readonly Import[]): string[] {
  // A row's path grants its whole row; a file's path (`bundlers/types.ts`) only that file.
  const granted = (paths: readonly string[], target: Layer, file: string) => paths.some((path) => target.paths.includes(path) || path === file);
  return imports.flatMap(({ from, to, typeOnly }) => {
    const source = layerOf(layers, from);
    const target = layerOf(layers, to);
    const line = `${from} -> ${to}${typeOnly ? ' (types)' : ''}`;
    if (!source || !target) return [`${line}: ${source ? to : from} is in no row`];
    if (source === target || source.everything || granted(source.values, target, to)) return [];
    if (typeOnly && granted(source.types, target, to)) return [];
    return [line];
  });
}

/** Circles of imports between files, types included, each named once from its least path. */
function importCircles(imports: readonly Import[]): string[] {
  const edges = new Map<string, string[]>();
  for (const { from, to } of imports) edges.set(from, [...(edges.get(from) ?? []), to]);
  const circles = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    path.push(file);
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === 'open') {
        const circle = path.slice(path.indexOf(next));
        const start = circle.indexOf([...circle].sort()[0]!);
        circles.add([...circle.slice(start), ...circle.slice(0, start), circle[start]].join(' -> '));
      } else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of [...edges.keys()].sort()) if (!state.has(file)) visit(file);
  return [...circles];
}

/** An import of a module that is no file of the program (`node:fs`, `esbuild`), as written. */
interface BareImport {
  readonly from: string;
  readonly specifier: string;
}

// Under verbatimModuleSyntax (tsconfig.json) only `import type` and `export type` are erased:
// `import { type A }` still loads its module, so it counts as a value import, as `import()` does.
// A bare import is recorded only for its value: an erased `import type { Stats } from 'node:fs'`
// loads no file system. `dir`: the program's directory (its tsconfig.json and src/).
function readImports(dir = root): { imports: Import[]; bare: BareImport[] } {
  return withProgram(dir, ({ files, sourceFile }) => {
    const resolve = (from: string, specifier: string): string | undefined => {
      if (!specifier.startsWith('.')) return undefined;
      const target = toPosix(join(dirname(from), specifier)).replace(/\.js$/, '.ts');
      const found = [target, target.replace(/\.ts$/, '.tsx'), `${target}/index.ts`].find((candidate) => files.has(candidate));
      if (!found) throw new Error(`${from}: no file of the program is '${specifier}'`);
      return found;
    };
    const sourceRoot = `${toPosix(dir)}/src/`;
    const imports: Import[] = [];
    const bare: BareImport[] = [];
    for (const file of [...files].filter((candidate) => candidate.startsWith(sourceRoot))) {
      const from = toPosix(relative(dir, file));
      for (const literal of (sourceFile(file)?.imports ?? []).filter(isStringLiteral)) {
        const { parent } = literal;
        const typeOnly =
          (isImportDeclaration(parent) && parent.importClause?.phaseModifier === SyntaxKind.TypeKeyword) ||
          (isExportDeclaration(parent) && parent.isTypeOnly) ||
          isLiteralTypeNode(parent);
        const to = resolve(file, literal.text);
        if (!to) {
          if (!typeOnly) bare.push({ from, specifier: literal.text });
          continue;
        }
        imports.push({ from, to: toPosix(relative(dir, to)), typeOnly });
      }
    }
    return { imports, bare };
  });
}

const FILE_SYSTEM = new Set(['fs', 'node:fs', 'fs/promises', 'node:fs/promises']);
const FILE_SYSTEM_SECTION = 'The file system in `src/bundlers/`';

/** The files of `src/bundlers/` that ARCHITECTURE.md allows to import the file system, each with its reason. */
function parseFileSystemReasons(markdown: string): Map<string, string> {
  const layers = markdown.split(/^## /m).find((part) => part.startsWith('Layers\n')) ?? '';
  const section = layers.split(/^### /m).find((part) => part.startsWith(`${FILE_SYSTEM_SECTION}\n`));
  if (!section) throw new Error(`ARCHITECTURE.md "Layers" has no "${FILE_SYSTEM_SECTION}" section`);
  const reasons = new Map<string, string>();
  for (const line of section.split('\n').filter((text) => text.startsWith('- '))) {
    const match = /^- `(src\/bundlers\/[^`]+\.ts)`: (\S.*)$/.exec(line);
    if (!match) throw new Error(`ARCHITECTURE.md "${FILE_SYSTEM_SECTION}": cannot read "${line}"`);
    reasons.set(match[1]!, match[2]!);
  }
  return reasons;
}

/** A file of `src/bundlers/` importing the file system that has no reason, and a reason for a file that no longer does. */
function fileSystemOutsideIo(reasons: ReadonlyMap<string, string>, bare: readonly BareImport[]): string[] {
  const importing = new Set(bare.filter(({ from, specifier }) => from.startsWith('src/bundlers/') && FILE_SYSTEM.has(specifier)).map(({ from }) => from));
  return [
    ...[...importing].filter((file) => !reasons.has(file)).map((file) => `${file} imports the file system, and ARCHITECTURE.md gives no reason`),
    ...[...reasons.keys()].filter((file) => !importing.has(file)).map((file) => `${file} has a reason in ARCHITECTURE.md, and imports no file system`),
  ].sort();
}

describe('the layers of ARCHITECTURE.md', () => {
  let layers: Layer[];
  let imports: Import[];
  let bare: BareImport[];
  let fileSystemReasons: Map<string, string>;

  before(() => {
    const architecture = readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8');
    layers = parseLayerTable(architecture);
    fileSystemReasons = parseFileSystemReasons(architecture);
    ({ imports, bare } = readImports());
  });

  it('has a row for every folder and top-level file of src/, and names no path that is gone', () => {
    const entries = readdirSync(join(root, 'src'), { withFileTypes: true }).map((entry) => `src/${entry.name}${entry.isDirectory() ? '/' : ''}`);
    expect(entries.filter((entry) => !layers.some((layer) => layer.paths.includes(entry)))).to.deep.equal([]);
    const named = layers.flatMap((layer) => [...layer.paths, ...layer.values, ...layer.types]);
    expect(named.filter((path) => !existsSync(join(root, path)))).to.deep.equal([]);
    // The compiler's answer is not empty: a check over no imports would pass anything.
    expect(imports.filter((edge) => edge.typeOnly).length).to.be.greaterThan(50);
    expect(imports.filter((edge) => !edge.typeOnly).length).to.be.greaterThan(100);
  });

  it('every import of src/ is one its layer may make', () => {
    expect(forbiddenImports(layers, imports)).to.deep.equal([]);
  });

  it('no files of src/ import each other in a circle', () => {
    expect(importCircles(imports)).to.deep.equal([]);
  });

  it('src/bundlers/ imports the file system only in the files ARCHITECTURE.md names, each with its reason', () => {
    // The compiler's answer holds the imports of built-in modules: a check over none would pass anything.
    expect(bare.filter(({ specifier }) => FILE_SYSTEM.has(specifier)).length).to.be.greaterThan(10);
    expect(fileSystemOutsideIo(fileSystemReasons, bare)).to.deep.equal([]);
  });
});

describe('the layer check', () => {
  const table = [
    '## Layers',
    '',
    '| folder | its one job | may import |',
    '|---|---|---|',
    '| `src/low/` | leaf | nothing |',
    '| `src/mid/` | middle | `low/` types, `low/errors.ts` |',
    '| `src/top/`, `src/top.ts` | top | `mid/`, `low/` |',
    '| `src/root.ts` | root | everything |',
    '',
  ].join('\n');
  const layers = parseLayerTable(table);
  const edge = (from: string, to: string, typeOnly = false): Import => ({ from, to, typeOnly });

  it('allows a type import where the row says "types", and refuses a value import there', () => {
    expect(forbiddenImports(layers, [edge('src/mid/a.ts', 'src/low/b.ts', true)])).to.deep.equal([]);
    expect(forbiddenImports(layers, [edge('src/mid/a.ts', 'src/low/b.ts')])).to.deep.equal(['src/mid/a.ts -> src/low/b.ts']);
  });

  it('allows values of a file the row names, and of no other file of its layer', () => {
    expect(forbiddenImports(layers, [edge('src/mid/a.ts', 'src/low/errors.ts'), edge('src/mid/a.ts', 'src/low/b.ts')])).to.deep.equal(['src/mid/a.ts -> src/low/b.ts']);
  });

  it('refuses an import upward, allows one within a row and from a row of "everything"', () => {
    expect(forbiddenImports(layers, [edge('src/low/a.ts', 'src/mid/b.ts', true)])).to.deep.equal(['src/low/a.ts -> src/mid/b.ts (types)']);
    expect(forbiddenImports(layers, [edge('src/top.ts', 'src/top/x/y.ts'), edge('src/top/a.ts', 'src/low/b.ts'), edge('src/root.ts', 'src/top.ts')])).to.deep.equal([]);
  });

  it('refuses an import from or to a file that no row holds', () => {
    expect(forbiddenImports(layers, [edge('src/other.ts', 'src/low/a.ts')])).to.deep.equal(['src/other.ts -> src/low/a.ts: src/other.ts is in no row']);
  });

  it('refuses a row it cannot read', () => {
    expect(() => parseLayerTable(table.replace('nothing |', 'the above |'))).to.throw(/cannot read "the above"/);
  });

  it('finds a circle of type imports as well as of values', () => {
    expect(importCircles([edge('src/b.ts', 'src/c.ts'), edge('src/c.ts', 'src/a.ts', true), edge('src/a.ts', 'src/b.ts')])).to.deep.equal(['src/a.ts -> src/b.ts -> src/c.ts -> src/a.ts']);
    expect(importCircles([edge('src/a.ts', 'src/b.ts'), edge('src/b.ts', 'src/c.ts'), edge('src/a.ts', 'src/c.ts')])).to.deep.equal([]);
  });
});

describe('the file system check of src/bundlers/', () => {
  const architecture = (lines: string[]) => ['## Layers', '', '### The file system in `src/bundlers/`', '', ...lines, '', '## Next', ''].join('\n');
  const reasons = parseFileSystemReasons(architecture(['- `src/bundlers/engine.ts`: the mtime of a changed input']));

  it('refuses a file of src/bundlers/ importing the file system without a reason, in any of its names', () => {
    const bare = ['fs', 'node:fs', 'fs/promises', 'node:fs/promises'].map((specifier) => ({ from: 'src/bundlers/join.ts', specifier }));
    for (const one of bare) {
      expect(fileSystemOutsideIo(reasons, [{ from: 'src/bundlers/engine.ts', specifier: 'node:fs' }, one])).to.deep.equal(['src/bundlers/join.ts imports the file system, and ARCHITECTURE.md gives no reason']);
    }
  });

  it('allows a file with a reason, another import, and the file system outside src/bundlers/', () => {
    const bare = [{ from: 'src/bundlers/engine.ts', specifier: 'node:fs' }, { from: 'src/bundlers/join.ts', specifier: 'node:path' }, { from: 'src/io/join.ts', specifier: 'node:fs' }];
    expect(fileSystemOutsideIo(reasons, bare)).to.deep.equal([]);
  });

  it('refuses a reason for a file that no longer imports the file system', () => {
    expect(fileSystemOutsideIo(reasons, [])).to.deep.equal(['src/bundlers/engine.ts has a reason in ARCHITECTURE.md, and imports no file system']);
  });

  it('counts a value import of the file system, and not an erased `import type` (read by the compiler)', function () {
    const dir = tempWorkspace({
      'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', verbatimModuleSyntax: true, noEmit: true, types: [] }, include: ['src'] }),
      'src/bundlers/typed.ts': "import type { Stats } from 'node:fs';\nexport type Kept = Stats;\n",
      // `import { type A }` is not erased: the module loads.
      'src/bundlers/reads.ts': "import { type Stats, statSync } from 'node:fs';\nexport const size = (file: string): Stats => statSync(file);\n",
    });
    const { bare } = readImports(dir);
    expect(bare).to.deep.equal([{ from: 'src/bundlers/reads.ts', specifier: 'node:fs' }]);
    expect(fileSystemOutsideIo(new Map(), bare)).to.deep.equal(['src/bundlers/reads.ts imports the file system, and ARCHITECTURE.md gives no reason']);
  });

  it('refuses a line it cannot read, and a document without the section', () => {
    expect(() => parseFileSystemReasons(architecture(['- `src/io/x.ts`: elsewhere']))).to.throw(/cannot read/);
    expect(() => parseFileSystemReasons(architecture(['- `src/bundlers/x.ts`:']))).to.throw(/cannot read/);
    expect(() => parseFileSystemReasons('## Layers\n\n## Next\n')).to.throw(/has no "The file system/);
  });
});
