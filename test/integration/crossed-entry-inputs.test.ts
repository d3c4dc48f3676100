// An import of another module's entry from TypeScript (README "Bundling real code"): the names it
// imports are learnt from a build of that entry alone, so the importer depends on every file that
// build read. Those files are inputs of the importer (an edit builds it again), never files it
// read (README "Shared files"): two modules crossing into one entry share nothing through it, and
// a restart with the build cache keeps them apart as the build did.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { selectSharedFiles } from '../../src/store/selectors.js';
import { filesRead } from '../../src/workspace/files-read.js';
import { DEV } from '../helpers/fixtures.js';
import { awaitedWalk, serve } from '../helpers/service.js';
import { inlineWorkspace, writeFile } from '../helpers/workspace.js';
import { crossingWorkspace, lastBuild, PART, PLAIN } from '../helpers/crossing-workspace.js';

const address = (subpath: string) => `/m/@t/lib@1.0.0/modules/${subpath}?${DEV}`;

describe("the files another module's entry is re-exported from, by a TypeScript importer", function () {
  this.timeout(30_000);

  it('are inputs of the importer: a type made a value there is imported by its next answer', async () => {
    const root = crossingWorkspace();
    const service = await serve(root);
    expect((await service.get(address('main'))).text).to.match(/import \{ plain \} from "@t\/lib\/plain"/).and.to.not.match(/\bPart\b/);
    writeFile(root, PART, 'export class Part {}\n');
    expect((await service.get(address('main'))).text).to.match(/import \{ Part, plain \} from "@t\/lib\/plain"/);
  });

  it('are no files the importers read: two modules of one package crossing into one entry share no file through it', async () => {
    const service = await serve(crossingWorkspace());
    const report = await service.report();
    expect(report.modules.map((module) => [module.specifier, module.status, (module.warnings ?? []).map((warning) => warning.kind)])).to.deep.equal([
      ['@t/lib/main', 'valid', ['MODULE_BOUNDARY_CROSSED']],
      ['@t/lib/other', 'valid', ['MODULE_BOUNDARY_CROSSED']],
      ['@t/lib/plain', 'valid', []],
    ]);
    const state = service.internals.store.getState();
    for (const module of ['@t/lib/main', '@t/lib/other']) {
      const record = lastBuild(state, module);
      expect(record.inputs, module).to.have.property(PART);
      expect(record.resolution, module).to.include.members([PART, PLAIN]);
      expect(filesRead(record), module).to.not.include(PART);
    }
    expect([...selectSharedFiles(state)]).to.deep.equal([]);
    expect(service.internals.log.events().filter((event) => event.type === 'copies.found')).to.deep.equal([]);
    for (const subpath of ['main', 'other']) expect((await service.get(address(subpath))).text).to.not.include('.shared');
  });

  it('stay apart after a restart with the build cache: restored, the record still refuses to call them read, and an edit of one builds the importer', async () => {
    const root = crossingWorkspace();
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'core-crossed-cache-'));
    const first = await serve(root, { cache });
    await first.report();
    await first.close();
    const restarted = await serve(root, { cache });
    await restarted.report();
    const state = restarted.internals.store.getState();
    const record = lastBuild(state, '@t/lib/main');
    expect(record.build, 'restored from the build cache').to.equal(0);
    expect(record.resolution).to.include.members([PART, PLAIN]);
    expect(filesRead(record)).to.not.include(PART);
    expect([...selectSharedFiles(state)]).to.deep.equal([]);
    writeFile(root, PART, 'export class Part {}\n');
    expect((await restarted.get(address('main'))).text).to.match(/import \{ Part, plain \} from "@t\/lib\/plain"/);
  });

  it('include the links that build went through: a directory link retargeted to where the type is a value builds the importer again, before the watcher is up and after', async () => {
    const root = inlineWorkspace({
      'packages/lib': {
        manifest: { name: '@t/lib', version: '1.0.0', type: 'module', exports: { './plain': './src/plain.ts', './main': './src/main.ts' } },
        files: {
          'src/part-type/part.ts': 'export type Part = { name: string };\n',
          'src/part-value/part.ts': 'export class Part {}\n',
          'src/plain.ts': "export * from './linked/part.ts';\nexport const plain = 1;\n",
          'src/main.ts': "export { Part, plain } from './plain.ts';\n",
        },
      },
    });
    const src = path.join(root, 'packages/lib/src');
    fs.symlinkSync('part-type', path.join(src, 'linked'));
    /** Points `linked` at `target`, as `ln -sfn` does: a new link renamed over the old one. */
    const retarget = (target: string) => {
      fs.symlinkSync(target, path.join(src, 'linked.new'));
      fs.renameSync(path.join(src, 'linked.new'), path.join(src, 'linked'));
    };
    const walk = awaitedWalk();
    const service = await serve(root, { effectDeps: walk.deps });
    expect((await service.get(address('main'))).text).to.match(/import \{ plain \} from "@t\/lib\/plain"/).and.to.not.match(/\bPart\b/);
    // Where the link leads is what the importer depends on, recorded as its own imports' links are.
    const record = lastBuild(service.internals.store.getState(), '@t/lib/main');
    expect(record.resolution).to.include.members(['packages/lib/src/linked/part.ts ->', 'packages/lib/src/part-type/part.ts']);
    expect(filesRead(record)).to.not.include('packages/lib/src/linked/part.ts ->');
    retarget('part-value');
    expect((await service.get(address('main'))).text, 'retargeted in the first second').to.match(/import \{ Part, plain \} from "@t\/lib\/plain"/);
    await walk.walked;
    retarget('part-type');
    expect((await service.get(address('main'))).text, 'retargeted once the watcher is up').to.match(/import \{ plain \} from "@t\/lib\/plain"/).and.to.not.match(/\bPart\b/);
  });
});
