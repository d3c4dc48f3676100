// A declared asset that is a symbolic link (README "Files that are not files"): its listing
// calls it a file whatever it leads to, while its address serves only a regular file of its
// package. `/state` must say what the address answers: `invalid` where the address answers 404
// (a link to a FIFO, to nothing, to a directory, out of its package or of the workspace), `valid`
// again once what the link leads to is served, with no restart.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { expect } from 'chai';
import { RACY_MS } from '../../src/io/file-hashes.js';
import type { CoreEvent } from '../../src/store/events.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';
import type { Report } from '../../src/store/selectors.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const SVG = '<svg xmlns="http://www.w3.org/2000/svg"/>';
const ASSET_URL = '/m/@p/app@1.0.0/assets/main/logo.svg';

// The asset `main/logo.svg` of @p/app; `art/` another folder of the package, `packages/other` another package.
function workspace(): string {
  return tempWorkspace({
    'core.json': json({ packages: ['packages/app', 'packages/other'] }),
    'packages/app/package.json': json({ name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts' } }),
    'packages/app/main/module.json': json({ assets: ['logo.svg'] }),
    'packages/app/main/index.ts': 'export const main = 1;\n',
    'packages/app/art/keep.txt': 'a folder of the package\n',
    'packages/other/package.json': json({ name: '@p/other', version: '1.0.0', exports: { '.': './index.ts' } }),
    'packages/other/index.ts': 'export const other = 1;\n',
    'packages/other/logo.svg': SVG,
  });
}

const mainOf = (report: Report) => report.modules.find((m) => m.specifier === '@p/app/main')!;
const manifestProblems = (report: Report) => mainOf(report).diagnostics.map((d) => [d.kind, d.file, d.message]);
const problem = (words: string) => [['MANIFEST_INVALID', 'packages/app/main/module.json', `packages/app/main/module.json: "assets" declares "logo.svg", but packages/app/main/logo.svg ${words} or remove it from "assets"`]];
const LEAD = 'make it lead to a regular file of its package';

async function expectInvalid(service: Awaited<ReturnType<typeof serve>>, words: string): Promise<void> {
  const report = await waitFor(async () => {
    const next = (await service.get('/state')).json<Report>();
    return mainOf(next).status === 'invalid' && next;
  });
  expect(manifestProblems(report)).to.deep.equal(problem(words));
  expect((await service.get(ASSET_URL)).status).to.equal(404);
}

async function expectServed(service: Awaited<ReturnType<typeof serve>>): Promise<void> {
  await waitFor(async () => mainOf((await service.get('/state')).json<Report>()).status === 'valid', { what: '@p/app/main valid' });
  const answer = await service.get(ASSET_URL);
  expect(answer.status).to.equal(200);
  expect(answer.text).to.equal(SVG);
}

describe('a declared asset that is a symbolic link: /state agrees with its address', function () {
  it('a link to a FIFO in another folder: invalid naming the link and the FIFO, unread; a regular file put in the FIFO\'s place makes it valid with no restart', async function () {
    const root = workspace();
    const target = path.join(root, 'packages/app/art/logo.svg');
    execFileSync('mkfifo', [target]);
    fs.symlinkSync('../art/logo.svg', path.join(root, 'packages/app/main/logo.svg'));
    const service = await serve(root);
    try {
      // An open of the FIFO would wait for a writer, and this report with it.
      const report = await service.report();
      expect(mainOf(report).status).to.equal('invalid');
      expect(manifestProblems(report)).to.deep.equal(problem(`is a symbolic link to packages/app/art/logo.svg, a FIFO (named pipe), not a regular file: ${LEAD}`));
      expect((await service.get(ASSET_URL)).status).to.equal(404);

      // Nothing in the link's folder changes: only the target's.
      fs.rmSync(target);
      fs.writeFileSync(target, SVG);
      await expectServed(service);
    } finally {
      await service.close();
    }
  });

  it('a dangling link, a link to a directory, a link leaving its package and one leaving the workspace: each invalid as its address answers 404; each made right, valid', async function () {
    const root = workspace();
    const link = path.join(root, 'packages/app/main/logo.svg');
    fs.symlinkSync('../art/missing.svg', link);
    const service = await serve(root);
    try {
      await expectInvalid(service, `is a symbolic link leading to nothing (a dangling link): ${LEAD}`);
      // The target made where the link points: no listing the read took names it.
      fs.writeFileSync(path.join(root, 'packages/app/art/missing.svg'), SVG);
      await expectServed(service);

      // Retargeted (`ln -sfn`): the link's folder lists the same names.
      fs.rmSync(link);
      fs.symlinkSync('../art', link);
      await expectInvalid(service, `is a symbolic link to packages/app/art, a directory, not a regular file: ${LEAD}`);

      fs.rmSync(link);
      fs.symlinkSync('../../other/logo.svg', link);
      await expectInvalid(service, `is a symbolic link to packages/other/logo.svg, which leaves its package packages/app: ${LEAD}`);

      const outside = fs.mkdtempSync(path.join(path.dirname(root), 'outside-'));
      fs.writeFileSync(path.join(outside, 'logo.svg'), SVG);
      fs.rmSync(link);
      fs.symlinkSync(path.join(outside, 'logo.svg'), link);
      await expectInvalid(service, `is a symbolic link leading out of the workspace (not followed): ${LEAD}`);

      fs.rmSync(link);
      fs.symlinkSync('../art/missing.svg', link);
      await expectServed(service);
    } finally {
      await service.close();
    }
  });

  it('a regular file replaced by a link to a FIFO: invalid; the link retargeted to a regular file: valid', async function () {
    const root = workspace();
    const asset = path.join(root, 'packages/app/main/logo.svg');
    fs.writeFileSync(asset, SVG);
    execFileSync('mkfifo', [path.join(root, 'packages/app/art/pipe.svg')]);
    fs.writeFileSync(path.join(root, 'packages/app/art/logo.svg'), SVG);
    const service = await serve(root);
    try {
      await expectServed(service);
      fs.rmSync(asset);
      fs.symlinkSync('../art/pipe.svg', asset);
      await expectInvalid(service, `is a symbolic link to packages/app/art/pipe.svg, a FIFO (named pipe), not a regular file: ${LEAD}`);
      fs.rmSync(asset);
      fs.symlinkSync('../art/logo.svg', asset);
      await expectServed(service);
    } finally {
      await service.close();
    }
  });

  it('at a restart from the build cache: the model kept while the link and its target hold, read again once the target is a FIFO', async function () {
    const root = workspace();
    fs.writeFileSync(path.join(root, 'packages/app/art/logo.svg'), SVG);
    fs.symlinkSync('../art/logo.svg', path.join(root, 'packages/app/main/logo.svg'));
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'core-cache-'));
    const start = async () => {
      const service = await serve(root, { cache, effectDeps: (deps) => ({ ...deps, persistDelayMs: 20 }) });
      const read = service.internals.log.events().find((event): event is Extract<CoreEvent, { type: 'workspace.read' }> => event.type === 'workspace.read')!;
      return { service, restored: read.restored === true };
    };
    const modelSaved = () => waitFor(() => fs.existsSync(path.join(cache, 'builds.json')) && (JSON.parse(fs.readFileSync(path.join(cache, 'builds.json'), 'utf8')) as { workspace?: unknown }).workspace !== undefined, { what: 'the model in the cache' });
    try {
      // Past the racy window of the files just written: a stat taken now proves them later.
      await new Promise((resolve) => setTimeout(resolve, RACY_MS + 10));
      const first = await start();
      await expectServed(first.service);
      // Where the link leads has no stat to sign: the model is saved all the same, with the link's answer.
      await modelSaved();
      await first.service.close();

      const second = await start();
      try {
        expect(second.restored, 'the model restored').to.equal(true);
        await expectServed(second.service);
      } finally {
        await second.service.close();
      }

      fs.rmSync(path.join(root, 'packages/app/art/logo.svg'));
      execFileSync('mkfifo', [path.join(root, 'packages/app/art/logo.svg')]);
      const third = await start();
      try {
        expect(third.restored, 'the model read again').to.equal(false);
        await expectInvalid(third.service, `is a symbolic link to packages/app/art/logo.svg, a FIFO (named pipe), not a regular file: ${LEAD}`);
      } finally {
        await third.service.close();
      }
    } finally {
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });
});
