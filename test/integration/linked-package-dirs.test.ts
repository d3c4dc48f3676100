// A package directory, or a module directory under `core.modules`, reached through a symbolic
// link that stays inside the workspace (README "Links and large trees"): the same statuses, the
// same bytes at every address and in `core dist` as the tree without the link, an edit through
// either path answered at once, and diagnostics naming the file by the path through the link.
// A link leading out of the workspace stays refused.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { distribute } from '../../src/dist/distribute.js';
import type { Report } from '../../src/store/selectors.js';
import { DEV, PROD } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';
import { exampleWorkspace, tempWorkspace } from '../helpers/workspace.js';

// `packages/ui` of the example workspace moved to `real/ui-a`, and a link left in its place.
function linkedPackage(): string {
  const root = exampleWorkspace();
  fs.mkdirSync(path.join(root, 'real'));
  fs.renameSync(path.join(root, 'packages/ui'), path.join(root, 'real/ui-a'));
  fs.symlinkSync('../real/ui-a', path.join(root, 'packages/ui'));
  return root;
}

// A module directory of @demo/ui (`src/badge` found under `core.modules: "src"`, `src/price` named by `exports`) moved to `real/`, a link in its place.
function linkedModule(name: 'badge' | 'price'): string {
  const root = exampleWorkspace();
  fs.mkdirSync(path.join(root, 'real'));
  fs.renameSync(path.join(root, `packages/ui/src/${name}`), path.join(root, `real/${name}-a`));
  fs.symlinkSync(`../../../real/${name}-a`, path.join(root, `packages/ui/src/${name}`));
  return root;
}

// Both: the package a link, and its module directory `src/badge` a link of its own to `real/badge-a`.
function linkedPackageAndModule(): string {
  const root = linkedPackage();
  fs.renameSync(path.join(root, 'real/ui-a/src/badge'), path.join(root, 'real/badge-a'));
  fs.symlinkSync('../../badge-a', path.join(root, 'real/ui-a/src/badge'));
  return root;
}

const ADDRESSES = [
  '/m/@demo/ui@1.1.0/modules/badge',
  '/m/@demo/ui@1.1.0/styles/badge',
  '/m/@demo/ui@1.1.0/assets/badge/star.svg',
  '/m/@demo/ui@1.1.0/modules/price',
  '/m/@demo/shop@0.4.0/modules/storefront',
  '/m/@demo/shop@0.4.0/styles/storefront',
];

const statuses = (report: Report) => report.modules.map((module) => [module.specifier, module.status, module.diagnostics]);
const BADGE = '/m/@demo/ui@1.1.0/modules/badge';

// Every file under `dir`, by its path there, with its bytes.
function filesOf(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    files[path.relative(dir, file)] = fs.readFileSync(file, 'base64');
  }
  return files;
}

describe('a package or module directory reached through a link inside the workspace', function () {
  this.timeout(60_000);

  for (const [shape, make] of [
    ['a package directory', linkedPackage],
    ['a module directory under core.modules', () => linkedModule('badge')],
    ['a module directory named by exports', () => linkedModule('price')],
    ['a module directory linked inside a linked package', linkedPackageAndModule],
  ] as const) {
    it(`${shape}: the same statuses and the same bytes at every address, development and production, as the tree without the link`, async () => {
      const plain = await serve(exampleWorkspace());
      const linked = await serve(make());
      const report = await linked.report();
      expect(statuses(report)).to.deep.equal(statuses(await plain.report()));
      expect(report.modules.every((module) => module.status === 'valid')).to.equal(true);
      for (const address of ADDRESSES) {
        for (const query of [DEV, PROD]) {
          const [mine, theirs] = [await linked.get(`${address}?${query}`), await plain.get(`${address}?${query}`)];
          expect(mine.status, address).to.equal(200);
          expect(mine.text, `${address}?${query}`).to.equal(theirs.text);
        }
      }
      // Development code names its sources as the workspace does: through the link.
      expect((await linked.get(`${BADGE}?${DEV}`)).text).to.include('// packages/ui/src/badge/index.ts').and.not.include('real/');
    });
  }

  it('an edit through either path is in the next answer, and a diagnostic names the file through the link', async () => {
    const root = linkedPackage();
    const service = await serve(root);
    expect((await service.get(`${BADGE}?${DEV}`)).text).to.include('icon.alt = "";');
    fs.writeFileSync(path.join(root, 'real/ui-a/src/badge/index.ts'), fs.readFileSync(path.join(root, 'real/ui-a/src/badge/index.ts'), 'utf8').replace("icon.alt = '';", "icon.alt = 'real';"));
    expect((await service.get(`${BADGE}?${DEV}`)).text).to.include('icon.alt = "real";');
    fs.writeFileSync(path.join(root, 'packages/ui/src/badge/index.ts'), fs.readFileSync(path.join(root, 'packages/ui/src/badge/index.ts'), 'utf8').replace("icon.alt = 'real';", "icon.alt = 'linked';"));
    expect((await service.get(`${BADGE}?${DEV}`)).text).to.include('icon.alt = "linked";');
    fs.appendFileSync(path.join(root, 'real/ui-a/src/badge/badge.css'), '.demo-badge { color: rgb(1, 2, 3); }\n');
    expect((await service.get(`/m/@demo/ui@1.1.0/styles/badge?${DEV}`)).text).to.include('rgb(1, 2, 3)');

    fs.appendFileSync(path.join(root, 'real/ui-a/src/badge/index.ts'), "import './absent.ts';\n");
    expect((await service.get(`${BADGE}?${DEV}`)).status).to.equal(422);
    const badge = (await service.report()).modules.find((module) => module.specifier === '@demo/ui/badge')!;
    expect(badge.status).to.equal('invalid');
    expect(badge.diagnostics.map((d) => [d.kind, d.file])).to.deep.equal([['BUNDLE_ERROR', 'packages/ui/src/badge/index.ts']]);
  });

  it('the link retargeted (ln -sfn) is in the next answer, and after a restart', async () => {
    const root = linkedPackage();
    fs.cpSync(path.join(root, 'real/ui-a'), path.join(root, 'real/ui-b'), { recursive: true });
    const other = path.join(root, 'real/ui-b/src/badge/index.ts');
    fs.writeFileSync(other, fs.readFileSync(other, 'utf8').replace("icon.alt = '';", "icon.alt = 'b';"));
    const first = await serve(root);
    expect((await first.get(`${BADGE}?${DEV}`)).text).to.include('icon.alt = "";');
    fs.symlinkSync('../real/ui-b', path.join(root, 'packages/ui-next'));
    fs.renameSync(path.join(root, 'packages/ui-next'), path.join(root, 'packages/ui'));
    expect((await first.get(`${BADGE}?${DEV}`)).text).to.include('icon.alt = "b";').and.not.include('real/');
    await first.close();
    const again = await serve(root);
    expect((await again.get(`${BADGE}?${DEV}`)).text).to.include('icon.alt = "b";');
    expect((await again.report()).modules.every((module) => module.status === 'valid')).to.equal(true);
  });

  it('a FIFO in the linked package: the build ends, the module invalid naming the FIFO by the path through the link; a file in its place makes it valid', async () => {
    const root = linkedPackage();
    execFileSync('mkfifo', [path.join(root, 'real/ui-a/src/badge/pipe.ts')]);
    fs.appendFileSync(path.join(root, 'real/ui-a/src/badge/index.ts'), "import { value } from './pipe.ts';\nconsole.log(value);\n");
    const service = await serve(root);
    const report = await service.report();
    const badge = report.modules.find((module) => module.specifier === '@demo/ui/badge')!;
    expect(badge.status).to.equal('invalid');
    expect(badge.diagnostics.map((d) => [d.kind, d.file])).to.deep.equal([['BUNDLE_ERROR', 'packages/ui/src/badge/index.ts']]);
    expect(badge.diagnostics[0]!.message).to.include('"packages/ui/src/badge/pipe.ts" is a FIFO (named pipe), not a regular file');
    expect(report.modules.filter((module) => module.status !== 'valid').map((module) => module.specifier)).to.deep.equal(['@demo/ui/badge']);
    fs.rmSync(path.join(root, 'real/ui-a/src/badge/pipe.ts'));
    fs.writeFileSync(path.join(root, 'real/ui-a/src/badge/pipe.ts'), 'export const value = 2;\n');
    expect((await service.get(`${BADGE}?${DEV}`)).text).to.include('value = 2');
  });

  it('a link in the linked package leading out of the workspace is still refused, unread', async () => {
    const root = linkedPackage();
    const outside = tempWorkspace({ 'secret.ts': 'export const secret = "outside";\n' });
    fs.symlinkSync(path.join(outside, 'secret.ts'), path.join(root, 'real/ui-a/src/badge/secret.ts'));
    fs.appendFileSync(path.join(root, 'real/ui-a/src/badge/index.ts'), "import { secret } from './secret.ts';\nconsole.log(secret);\n");
    const service = await serve(root);
    const badge = (await service.report()).modules.find((module) => module.specifier === '@demo/ui/badge')!;
    expect(badge.status).to.equal('invalid');
    expect(badge.diagnostics.map((d) => [d.kind, d.file])).to.deep.equal([['BUNDLE_ERROR', 'packages/ui/src/badge/index.ts']]);
    expect(badge.diagnostics[0]!.message).to.include('is outside the workspace');
  });

  for (const [shape, make] of [
    ['a package directory', linkedPackage],
    ['a module directory under core.modules', () => linkedModule('badge')],
    ['a module directory named by exports', () => linkedModule('price')],
  ] as const) {
    it(`${shape}: core dist writes the same files as for the tree without the link`, async () => {
      const plain = exampleWorkspace();
      const linked = make();
      const [ofPlain, ofLinked] = [await distribute({ root: plain, out: path.join(plain, 'out') }), await distribute({ root: linked, out: path.join(linked, 'out') })];
      expect(ofLinked.ok, JSON.stringify(ofLinked.invalid)).to.equal(true);
      expect(ofPlain.ok).to.equal(true);
      expect(filesOf(path.join(linked, 'out'))).to.deep.equal(filesOf(path.join(plain, 'out')));
    });
  }
});
