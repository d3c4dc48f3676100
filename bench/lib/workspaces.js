// The workloads: copies of the example workspace in fixtures/, and the generated workspace of
// 200 packages x 5 modules. Everything is written under bench/.work/, fresh on every run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FIXTURES, REPO, WORK } from './paths.js';

/** The storefront module of fixtures/: what the single-module measures use. */
export const STOREFRONT = {
  specifier: '@demo/shop/storefront',
  label: '@demo/shop@0.4.0/storefront',
  modules: '/m/@demo/shop@0.4.0/modules/storefront',
  entry: 'packages/shop/storefront/index.ts',
  helper: 'packages/shop/storefront/cart.ts',
  stylesheet: 'packages/shop/storefront/storefront.css',
};

export const DEVELOPMENT_QUERY = 'target=browser&format=esm&env=development&min=false&sourcemap=inline&types=false&css=false';
export const PRODUCTION_QUERY = 'target=browser&format=esm&env=production&min=true&sourcemap=none&types=false&css=false';

/** A fresh copy of fixtures/ at bench/.work/<name> (without `.core/` or `node_modules/`). */
export function copyFixtures(name) {
  const dir = path.join(WORK, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.cpSync(FIXTURES, dir, {
    recursive: true,
    filter: (source) => {
      const base = path.basename(source);
      return base !== '.core' && base !== 'node_modules';
    },
  });
  return dir;
}

/**
 * 200 packages x 5 modules: `@bench/pNNN/mK`, each an `index.ts` that imports './styles.css',
 * a helper './helper.ts' and (bare) the module of the same index of the previous package
 * (the first package imports the last one's), declared in `dependencies`. `under`: the
 * directory it is written in (bench/.work by default).
 */
export function generateScaleWorkspace(name, { packages = 200, modulesPerPackage = 5, under = WORK } = {}) {
  const dir = path.join(under, name);
  fs.rmSync(dir, { recursive: true, force: true });
  const pad = (n) => String(n).padStart(3, '0');
  const packageDirs = [];
  for (let p = 0; p < packages; p++) {
    const previous = (p + packages - 1) % packages;
    const packageName = `@bench/p${pad(p)}`;
    const dependencyName = `@bench/p${pad(previous)}`;
    const packageDir = `packages/p${pad(p)}`;
    packageDirs.push(packageDir);
    const exports = {};
    for (let m = 0; m < modulesPerPackage; m++) {
      exports[`./m${m}`] = `./m${m}/index.ts`;
      const moduleDir = path.join(dir, packageDir, `m${m}`);
      fs.mkdirSync(moduleDir, { recursive: true });
      const tag = `p${pad(p)}-m${m}`;
      fs.writeFileSync(
        path.join(moduleDir, 'index.ts'),
        `import './styles.css';
import { describe, total, type Item } from './helper.ts';
import { render as renderPrevious } from '${dependencyName}/m${m}';

const items: Item[] = [
  { name: 'first of ${tag}', amount: ${p + 1} },
  { name: 'second of ${tag}', amount: ${m + 2} },
  { name: 'third of ${tag}', amount: ${p * m + 3} },
];

export function render(target: HTMLElement): HTMLElement {
  const section = document.createElement('section');
  section.className = 'bench-${tag}';
  const heading = document.createElement('h2');
  heading.textContent = describe('${tag}', items.length);
  const list = document.createElement('ul');
  for (const item of items) {
    const entry = document.createElement('li');
    entry.textContent = \`\${item.name}: \${item.amount}\`;
    list.append(entry);
  }
  const footer = document.createElement('p');
  footer.textContent = \`total \${total(items)}\`;
  section.append(heading, list, footer);
  target.append(section);
  return section;
}

export function renderWithPrevious(target: HTMLElement): void {
  render(target);
  renderPrevious(target);
}
`,
      );
      fs.writeFileSync(
        path.join(moduleDir, 'helper.ts'),
        `// A private helper of ${packageName}/m${m}: bundled into the module.
export interface Item {
  name: string;
  amount: number;
}

export const total = (items: readonly Item[]): number => items.reduce((sum, item) => sum + item.amount, 0);

export function describe(tag: string, count: number): string {
  return count === 1 ? \`\${tag}: one item\` : \`\${tag}: \${count} items\`;
}
`,
      );
      fs.writeFileSync(
        path.join(moduleDir, 'styles.css'),
        `.bench-${tag} {
  display: block;
  margin: 1rem;
  padding: 0.5rem 1rem;
  border: 1px solid rgb(${p % 256}, ${(m * 40) % 256}, 120);
}

.bench-${tag} h2 {
  font: 600 1.25rem/1.2 system-ui, sans-serif;
}

.bench-${tag} li:nth-child(odd) {
  background: rgba(0, 0, 0, 0.04);
}
`,
      );
    }
    fs.writeFileSync(
      path.join(dir, packageDir, 'package.json'),
      `${JSON.stringify({ name: packageName, version: '1.0.0', private: true, exports, dependencies: { [dependencyName]: '^1.0.0' } }, null, 2)}\n`,
    );
  }
  fs.writeFileSync(path.join(dir, 'core.json'), `${JSON.stringify({ packages: packageDirs }, null, 2)}\n`);
  return { dir, modules: packages * modulesPerPackage };
}

/**
 * The page-load app: 100 packages x 10 modules `@pl/pNN/mK`, each a custom element
 * `<pl-pNN-mK>` with three chained helper files (h1 -> h2 -> h3), a stylesheet, and a bare
 * import of the same module of the next package (declared in `dependencies`); and `@pl/app/main`,
 * which imports all 1,000 and renders one element of each. Every element marks itself
 * rendered (`data-rendered`); its stylesheet colours it. The same sources serve our service and
 * Vite (`entries` maps each specifier to its entry file, for Vite's resolver). `under`: the
 * directory it is written in (bench/.work by default).
 */
/**
 * The 1,000-module page-load workspace of the cold scripts (cold-cpu.js, cold-phases.js), kept,
 * outside every repository: in bench/.work, `@core-js/packages/development` resolves from the
 * workspace to this repository (its package name), and a build of another directory then loads
 * this one's extension from source besides its own bundle.
 */
export const coldCpuWorkspace = () => generatePageLoadWorkspace('cold-cpu-1000', { keep: true, under: path.join(os.tmpdir(), `core-bench-${path.basename(REPO)}`) });

export function generatePageLoadWorkspace(name, { packages = 100, modulesPerPackage = 10, keep = false, under = WORK } = {}) {
  const dir = path.join(under, name);
  // Two digits up to 100 packages (the page-load workspace's names), more for the 10,000-module one.
  const digits = Math.max(2, String(packages - 1).length);
  const pad = (n) => String(n).padStart(digits, '0');
  // `keep`: a workspace an earlier call wrote whole (its vite-entries.json is written last) is taken as it is.
  if (keep && fs.existsSync(path.join(dir, 'vite-entries.json'))) {
    const specifiers = Object.keys(JSON.parse(fs.readFileSync(path.join(dir, 'vite-entries.json'), 'utf8'))).filter((specifier) => specifier !== '@pl/app/main');
    return { dir, entriesFile: path.join(dir, 'vite-entries.json'), elements: specifiers.length, lastTag: `pl-${specifiers.at(-1).slice(4).replace('/', '-')}`, lastColor: `rgb(${(packages - 1) % 256}, ${(modulesPerPackage - 1) % 256}, 200)`, packageName: (p) => `@pl/p${pad(p)}` };
  }
  fs.rmSync(dir, { recursive: true, force: true });
  const packageDirs = [];
  const entries = {};
  const specifiers = [];
  for (let p = 0; p < packages; p++) {
    const packageName = `@pl/p${pad(p)}`;
    const next = p + 1 < packages ? `@pl/p${pad(p + 1)}` : null;
    const packageDir = `packages/p${pad(p)}`;
    packageDirs.push(packageDir);
    const exports = {};
    for (let m = 0; m < modulesPerPackage; m++) {
      const tag = `pl-p${pad(p)}-m${m}`;
      const moduleDir = path.join(dir, packageDir, `m${m}`);
      fs.mkdirSync(moduleDir, { recursive: true });
      exports[`./m${m}`] = `./m${m}/index.ts`;
      entries[`${packageName}/m${m}`] = path.join(moduleDir, 'index.ts');
      specifiers.push(`${packageName}/m${m}`);
      const nextImport = next ? `import { label as nextLabel } from '${next}/m${m}';\n` : `const nextLabel = 'end';\n`;
      fs.writeFileSync(
        path.join(moduleDir, 'index.ts'),
        `import './style.css';
import { first } from './h1.ts';
${nextImport}
export const label = '${tag}';

class Element${p}x${m} extends HTMLElement {
  connectedCallback(): void {
    this.textContent = \`\${first(label)} -> \${nextLabel}\`;
    this.dataset.rendered = '';
  }
}

if (!customElements.get(label)) customElements.define(label, Element${p}x${m});
`,
      );
      fs.writeFileSync(path.join(moduleDir, 'h1.ts'), `import { second } from './h2.ts';\n\nexport const first = (text: string): string => \`[\${second(text)}]\`;\n`);
      fs.writeFileSync(path.join(moduleDir, 'h2.ts'), `import { third } from './h3.ts';\n\nexport const second = (text: string): string => third(text).toUpperCase();\n`);
      fs.writeFileSync(path.join(moduleDir, 'h3.ts'), `export const third = (text: string): string => \`\${text} (${p * modulesPerPackage + m})\`;\n`);
      fs.writeFileSync(path.join(moduleDir, 'style.css'), `${tag} {\n  display: block;\n  color: rgb(${p % 256}, ${m % 256}, 200);\n}\n`);
    }
    fs.writeFileSync(
      path.join(dir, packageDir, 'package.json'),
      `${JSON.stringify({ name: packageName, version: '1.0.0', private: true, type: 'module', exports, dependencies: next ? { [next]: '1.0.0' } : {} }, null, 2)}\n`,
    );
  }
  // The app: imports every module, renders one element of each.
  const appDir = path.join(dir, 'packages/app/main');
  fs.mkdirSync(appDir, { recursive: true });
  fs.writeFileSync(
    path.join(appDir, 'index.ts'),
    `${specifiers.map((specifier) => `import '${specifier}';`).join('\n')}\n\nconst tags = ${JSON.stringify(specifiers.map((specifier) => `pl-${specifier.slice(4).replace('/', '-')}`))};\nfor (const tag of tags) document.body.append(document.createElement(tag));\n`,
  );
  entries['@pl/app/main'] = path.join(appDir, 'index.ts');
  fs.writeFileSync(
    path.join(dir, 'packages/app/package.json'),
    `${JSON.stringify({ name: '@pl/app', version: '1.0.0', private: true, type: 'module', exports: { './main': './main/index.ts' }, dependencies: Object.fromEntries(packageDirs.map((_, p) => [`@pl/p${pad(p)}`, '1.0.0'])) }, null, 2)}\n`,
  );
  fs.writeFileSync(path.join(dir, 'core.json'), `${JSON.stringify({ packages: [...packageDirs, 'packages/app'], preview: '@pl/app/main' }, null, 2)}\n`);
  // For Vite: the page, and the map of specifiers to entry files its resolver uses.
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>page load</title></head>\n<body>\n<script type="module" src="/packages/app/main/index.ts"></script>\n</body>\n</html>\n');
  const entriesFile = path.join(dir, 'vite-entries.json');
  fs.writeFileSync(entriesFile, JSON.stringify(entries));
  return { dir, entriesFile, elements: specifiers.length, lastTag: `pl-${specifiers.at(-1).slice(4).replace('/', '-')}`, lastColor: `rgb(${(packages - 1) % 256}, ${(modulesPerPackage - 1) % 256}, 200)`, packageName: (p) => `@pl/p${pad(p)}` };
}
