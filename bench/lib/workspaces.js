// The workloads: copies of the example workspace in fixtures/, and the generated workspace of
// 200 packages x 5 modules. Everything is written under bench/.work/, fresh on every run.
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURES, WORK } from './paths.js';

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
 * (the first package imports the last one's), declared in `dependencies`.
 */
export function generateScaleWorkspace(name, { packages = 200, modulesPerPackage = 5 } = {}) {
  const dir = path.join(WORK, name);
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
