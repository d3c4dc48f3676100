// Two versions of one installed package, as npm installs a conflict (README "The local CDN"): the
// workspace depends on dep 1.0.0 and helper 1.0.0, and on other 1.0.0, whose own dependency is
// dep 2.0.0, nested at node_modules/other/node_modules/dep; dep 2.0.0's own helper is 2.0.0,
// nested below it in turn. Each module says which version it loaded, so a page shows what ran.
import fs from 'node:fs';
import path from 'node:path';
import { tempWorkspace } from './workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** What the preview entry writes into `document.body.dataset.shown` when each package loads the version Node gives it. */
export const NESTED_VERSIONS_SHOWN = 'mine=dep1 other=dep2 othersub=dep2 helper=helper1 deephelper=helper2';

const ENTRY = `import { v } from 'dep';
import { ov } from 'other';
import { sv } from 'other/sub';
import { helper, deepHelper } from './helpers.ts';
document.body.dataset.shown = 'mine=' + v + ' other=' + ov + ' othersub=' + sv + ' helper=' + helper + ' deephelper=' + deepHelper;
`;
const HELPERS = `import { h } from 'helper';
import { dh } from 'other';
export const helper = h;
export const deepHelper = dh;
`;

const manifest = (name: string, version: string, extra: Record<string, unknown> = {}) => json({ name, version, type: 'module', exports: './index.js', ...extra });

/** The packages of the install, each version in its directory (npm's nesting, or pnpm's store). */
function installedFiles(at: (name: string, version: string) => string): Record<string, string> {
  return {
    [`${at('dep', '1.0.0')}/package.json`]: manifest('dep', '1.0.0'),
    [`${at('dep', '1.0.0')}/index.js`]: "export const v = 'dep1';\n",
    [`${at('helper', '1.0.0')}/package.json`]: manifest('helper', '1.0.0'),
    [`${at('helper', '1.0.0')}/index.js`]: "export const h = 'helper1';\n",
    [`${at('other', '1.0.0')}/package.json`]: manifest('other', '1.0.0', { exports: { '.': './index.js', './sub': './sub.js' }, dependencies: { dep: '2.0.0' } }),
    [`${at('other', '1.0.0')}/index.js`]: "import { v, h } from 'dep';\nexport const ov = v;\nexport const dh = h;\n",
    [`${at('other', '1.0.0')}/sub.js`]: "import { v } from 'dep';\nexport const sv = v;\n",
    [`${at('dep', '2.0.0')}/package.json`]: manifest('dep', '2.0.0', { dependencies: { helper: '2.0.0' } }),
    [`${at('dep', '2.0.0')}/index.js`]: "export { h } from 'helper';\nexport const v = 'dep2';\n",
    [`${at('helper', '2.0.0')}/package.json`]: manifest('helper', '2.0.0'),
    [`${at('helper', '2.0.0')}/index.js`]: "export const h = 'helper2';\n",
  };
}

const workspaceFiles = (): Record<string, string> => ({
  'core.json': json({ packages: ['packages/app'], preview: '@nv/app/main' }),
  'packages/app/package.json': json({ name: '@nv/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { dep: '1.0.0', helper: '1.0.0', other: '1.0.0' } }),
  'packages/app/main/index.ts': ENTRY,
  'packages/app/main/helpers.ts': HELPERS,
});

/** As npm installs it: the conflicting versions nested in their importer's own node_modules. */
export function nestedVersionsWorkspace(): string {
  const nested: Record<string, string> = { 'dep@2.0.0': 'node_modules/other/node_modules/dep', 'helper@2.0.0': 'node_modules/other/node_modules/dep/node_modules/helper' };
  return tempWorkspace({ ...workspaceFiles(), ...installedFiles((name, version) => nested[`${name}@${version}`] ?? `node_modules/${name}`) });
}

/**
 * As pnpm installs it: each version once in `node_modules/.pnpm/<name>@<version>/node_modules/<name>`,
 * its dependencies links beside it there, and the workspace's links in `node_modules`.
 */
export function pnpmVersionsWorkspace(): string {
  const store = (name: string, version: string) => `node_modules/.pnpm/${name}@${version}/node_modules`;
  const root = tempWorkspace({ ...workspaceFiles(), ...installedFiles((name, version) => `${store(name, version)}/${name}`) });
  const link = (target: string, at: string) => {
    fs.mkdirSync(path.dirname(path.join(root, at)), { recursive: true });
    fs.symlinkSync(path.relative(path.dirname(path.join(root, at)), path.join(root, target)), path.join(root, at));
  };
  for (const name of ['dep', 'helper', 'other']) link(`${store(name, '1.0.0')}/${name}`, `node_modules/${name}`);
  link(`${store('dep', '2.0.0')}/dep`, `${store('other', '1.0.0')}/dep`);
  link(`${store('helper', '2.0.0')}/helper`, `${store('dep', '2.0.0')}/helper`);
  return root;
}

/**
 * npm's install of one version twice: other 1.0.0 at node_modules/other (its dep 2.0.0 nested),
 * and again below wrap, at node_modules/wrap/node_modules/other, with no nested dep (so dep 1.0.0).
 */
export function twiceInstalledWorkspace(): string {
  return tempWorkspace({
    ...workspaceFiles(),
    'packages/app/package.json': json({ name: '@nv/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { dep: '1.0.0', helper: '1.0.0', other: '1.0.0', wrap: '1.0.0' } }),
    'packages/app/main/index.ts': "import { ov } from 'other';\nimport { wv } from 'wrap';\ndocument.body.dataset.shown = 'other=' + ov + ' wrap=' + wv;\n",
    ...installedFiles((name, version) => (version === '2.0.0' ? `node_modules/other/node_modules/${name}` : `node_modules/${name}`)),
    'node_modules/wrap/package.json': manifest('wrap', '1.0.0', { dependencies: { other: '1.0.0' } }),
    'node_modules/wrap/index.js': "import { ov } from 'other';\nexport const wv = ov;\n",
    'node_modules/wrap/node_modules/other/package.json': manifest('other', '1.0.0', { exports: { '.': './index.js', './sub': './sub.js' } }),
    'node_modules/wrap/node_modules/other/index.js': "import { v } from 'dep';\nexport const ov = v;\nexport const dh = 'none';\n",
  });
}

/** What the preview entry of `ownVersionsWorkspace` writes into `document.body.dataset.shown`. */
export const OWN_VERSIONS_SHOWN = 'app=dep1 lib=dep3 other=dep2';

/**
 * Two workspace packages loading two versions of one name: @nv/app the workspace's dep 1.0.0,
 * @nv/lib its own dep 3.0.0, installed in packages/lib/node_modules (and other's nested 2.0.0 too).
 */
export function ownVersionsWorkspace(): string {
  const nested: Record<string, string> = { 'dep@2.0.0': 'node_modules/other/node_modules/dep', 'helper@2.0.0': 'node_modules/other/node_modules/helper' };
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app', 'packages/lib'], preview: '@nv/app/main' }),
    'packages/app/package.json': json({ name: '@nv/app', version: '1.0.0', exports: { './main': './main/index.ts' }, dependencies: { dep: '1.0.0', other: '1.0.0', '@nv/lib': '1.0.0' } }),
    'packages/app/main/index.ts': "import { v } from 'dep';\nimport { ov } from 'other';\nimport { lv } from '@nv/lib/version';\ndocument.body.dataset.shown = 'app=' + v + ' lib=' + lv + ' other=' + ov;\n",
    'packages/lib/package.json': json({ name: '@nv/lib', version: '1.0.0', exports: { './version': './version/index.ts' }, dependencies: { dep: '3.0.0' } }),
    'packages/lib/version/index.ts': "import { v } from 'dep';\nexport const lv = v;\n",
    'packages/lib/node_modules/dep/package.json': manifest('dep', '3.0.0'),
    'packages/lib/node_modules/dep/index.js': "export const v = 'dep3';\n",
    ...installedFiles((name, version) => nested[`${name}@${version}`] ?? `node_modules/${name}`),
  });
}
