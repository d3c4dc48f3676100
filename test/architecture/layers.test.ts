import { expect } from 'chai';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative as relativePath, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isExportDeclaration, isImportDeclaration, isLiteralTypeNode, isStringLiteral, SyntaxKind } from 'typescript/unstable/ast';
import { API } from 'typescript/unstable/sync';

// ARCHITECTURE.md "Layers": the table there is the one list of allowed imports; this test
// reads it, so the document and the check cannot disagree.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const sourceRoot = join(root, 'src');

interface Layer {
  readonly name: string;
  readonly paths: readonly string[];
  readonly everything: boolean;
  readonly values: readonly string[];
  readonly types: readonly string[];
}

const cellItems = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

export const parseLayerTable = (markdown: string): Layer[] => {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Layers\n'));
  if (!section) throw new Error('ARCHITECTURE.md has no "Layers" section');
  const rows = section.split('\n').filter((line) => line.startsWith('|')).slice(2);
  return rows.map((row) => {
    const [paths = '', , mayImport = ''] = row.split('|').slice(1, -1).map((cell) => cell.trim());
    const values: string[] = [];
    const types: string[] = [];
    let everything = false;
    for (const entry of mayImport.split(',').map((part) => part.trim())) {
      if (entry === 'everything') everything = true;
      else if (entry === 'nothing') continue;
      else {
        const [name] = cellItems(entry);
        if (!name) throw new Error(`ARCHITECTURE.md "Layers": cannot read "${entry}" in the row of ${paths}`);
        (/ types$/.test(entry) ? types : values).push(`src/${name}`);
      }
    }
    return { name: paths, paths: cellItems(paths), everything, values, types };
  });
};

interface Import {
  readonly from: string;
  readonly to: string;
  readonly typeOnly: boolean;
}

const toPosix = (path: string) => path.split(sep).join('/');
const relative = (from: string, to: string) => toPosix(relativePath(from, to));

// The compiler's own parse of each file of tsconfig.json's program. Under verbatimModuleSyntax
// (tsconfig.json) only `import type` and `export type` are erased: `import { type A }` still
// loads its module, so it counts as a value import; so does `import()`, and `import('x').T`
// is a type.
const readImports = (): Import[] => {
  const api = new API({ cwd: root });
  try {
    const [project] = api.updateSnapshot({ openProjects: [join(root, 'tsconfig.json')] }).getProjects();
    if (!project) throw new Error('tsconfig.json opened no project');
    const programFiles = new Set(project.program.getSourceFileNames().map(toPosix));
    const resolve = (from: string, specifier: string): string | undefined => {
      if (!specifier.startsWith('.')) return undefined;
      const target = toPosix(join(dirname(from), specifier)).replace(/\.js$/, '.ts');
      for (const candidate of [target, target.replace(/\.ts$/, '.tsx'), `${target}/index.ts`]) if (programFiles.has(candidate)) return candidate;
      throw new Error(`${from}: cannot find the file of '${specifier}'`);
    };
    return [...programFiles]
      .filter((file) => file.startsWith(`${toPosix(sourceRoot)}/`))
      .flatMap((file) =>
        (project.program.getSourceFile(file)?.imports ?? []).filter(isStringLiteral).flatMap((literal) => {
          const to = resolve(file, literal.text);
          if (!to) return [];
          const { parent } = literal;
          const typeOnly =
            (isImportDeclaration(parent) && parent.importClause?.phaseModifier === SyntaxKind.TypeKeyword) ||
            (isExportDeclaration(parent) && parent.isTypeOnly) ||
            isLiteralTypeNode(parent);
          return [{ from: relative(root, file), to: relative(root, to), typeOnly }];
        }),
      );
  } finally {
    api.close();
  }
};

const layers = parseLayerTable(readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8'));
const imports = readImports();

const owns = (path: string, file: string) => (path.endsWith('/') ? file.startsWith(path) : file === path);
const layerOf = (file: string): Layer | undefined =>
  layers
    .filter((layer) => layer.paths.some((path) => owns(path, file)))
    .sort((a, b) => Math.max(...b.paths.filter((path) => owns(path, file)).map((path) => path.length)) - Math.max(...a.paths.filter((path) => owns(path, file)).map((path) => path.length)))[0];

const allows = (granted: readonly string[], file: string) => granted.some((path) => owns(path, file) || layerOf(file)?.paths.includes(path));

export const forbiddenImports = (): string[] =>
  imports.flatMap(({ from, to, typeOnly }) => {
    const source = layerOf(from);
    const target = layerOf(to);
    if (!source || !target || source === target || source.everything) return [];
    if (allows(source.values, to)) return [];
    if (typeOnly && allows(source.types, to)) return [];
    return [`${from} -> ${to}${typeOnly ? ' (types)' : ''}`];
  });

// Every circle between files, each reported once by its files in import order.
export const importCircles = (): string[][] => {
  const edges = new Map<string, string[]>();
  for (const { from, to } of imports) edges.set(from, [...(edges.get(from) ?? []), to]);
  const circles = new Map<string, string[]>();
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    path.push(file);
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === 'open') {
        const circle = path.slice(path.indexOf(next));
        const start = circle.indexOf([...circle].sort()[0]!);
        const rotated = [...circle.slice(start), ...circle.slice(0, start)];
        circles.set(rotated.join(' -> '), rotated);
      } else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of [...edges.keys()].sort()) if (!state.has(file)) visit(file);
  return [...circles.values()];
};

describe('the layers of ARCHITECTURE.md', () => {
  it('reads a row for every folder and top-level file of src/', () => {
    const entries = readdirSync(sourceRoot, { withFileTypes: true }).map((entry) => `src/${entry.name}${entry.isDirectory() ? '/' : ''}`);
    const unlisted = entries.filter((entry) => !layers.some((layer) => layer.paths.includes(entry)));
    expect(unlisted).to.deep.equal([]);
    expect(imports.length).to.be.greaterThan(100);
  });

  it('every import of src/ is one its layer may make', () => {
    expect(forbiddenImports()).to.deep.equal([]);
  });

  it('no files of src/ import each other in a circle', () => {
    expect(importCircles().map((circle) => circle.join(' -> '))).to.deep.equal([]);
  });
});
