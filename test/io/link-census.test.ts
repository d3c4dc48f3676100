// The tree watcher's word on links leading out of the workspace (src/io/link-census.ts, README
// "Links and large trees"): it vouches that none does only once its walk is done, and a link made,
// retargeted or removed while it runs changes its word as its notice comes.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { watchTree, type TreeWatcher } from '../../src/io/tree-watcher.js';
import { tempWorkspace } from '../helpers/workspace.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `condition` holds (bounded: the test then fails on what it expected). */
async function until(condition: () => boolean, bound = 5_000): Promise<void> {
  for (let waited = 0; !condition() && waited < bound; waited += 10) await wait(10);
}

describe('the link census of the tree watcher', () => {
  let watcher: TreeWatcher | null = null;
  let outside: string;
  beforeEach(() => {
    outside = tempWorkspace({ 'secret.ts': "export const secret = 'OUTSIDE';\n", 'dir/x.ts': '' });
  });
  afterEach(async () => {
    await watcher?.close();
    watcher = null;
  });

  /** A watcher of `root` (dot-directories and node_modules skipped, as the service's scope does), its walk awaited. */
  async function watched(root: string, complete?: () => boolean): Promise<TreeWatcher> {
    const made = watchTree(root, { ignored: (absolute) => absolute.split(path.sep).some((segment) => segment === 'node_modules' || (segment.startsWith('.') && segment.length > 1)), ...(complete ? { complete } : {}) });
    watcher = made;
    const ready = new Promise<void>((resolve) => made.on('ready', resolve));
    expect(made.noLinkLeadsOut(), 'before its walk').to.equal(false);
    await ready;
    return made;
  }

  it('vouches for a tree whose links stay inside, and takes its word back for a link leading out made while it runs, until it is removed', async () => {
    const root = tempWorkspace({ 'app/main/index.ts': '', 'app/common/shared.ts': '' });
    fs.symlinkSync('../common/shared.ts', path.join(root, 'app/main/shared.ts'));
    fs.symlinkSync('../common', path.join(root, 'app/main/common'));
    const made = await watched(root);
    expect(made.noLinkLeadsOut()).to.equal(true);
    const link = path.join(root, 'app/main/linked.ts');
    fs.symlinkSync(path.join(outside, 'secret.ts'), link);
    await until(() => !made.noLinkLeadsOut());
    expect(made.noLinkLeadsOut(), 'a link to a file outside').to.equal(false);
    // Retargeted inside (`ln -sfn`: a link made beside, renamed over it).
    fs.symlinkSync('../common/shared.ts', `${link}.new`);
    fs.renameSync(`${link}.new`, link);
    await until(() => made.noLinkLeadsOut());
    expect(made.noLinkLeadsOut(), 'led back inside').to.equal(true);
    fs.rmSync(link);
    fs.symlinkSync(path.join(outside, 'dir'), link);
    await until(() => !made.noLinkLeadsOut());
    expect(made.noLinkLeadsOut(), 'a link to a folder outside').to.equal(false);
    fs.rmSync(link);
    await until(() => made.noLinkLeadsOut());
    expect(made.noLinkLeadsOut(), 'removed').to.equal(true);
  });

  it('counts a link found by the walk, a dangling link whose target is outside, one into a skipped folder, and one in a directory made or moved in while it runs', async () => {
    const root = tempWorkspace({ 'app/main/index.ts': '', 'app/.gen/x.ts': '', 'node_modules/pkg/index.js': '' });
    fs.symlinkSync(path.join(outside, 'secret.ts'), path.join(root, 'app/linked.ts'));
    const made = await watched(root);
    expect(made.noLinkLeadsOut(), 'found by the walk').to.equal(false);
    fs.rmSync(path.join(root, 'app/linked.ts'));
    await until(() => made.noLinkLeadsOut());
    expect(made.noLinkLeadsOut()).to.equal(true);

    // Made later, the file outside would be led to with no notice inside the workspace.
    fs.symlinkSync(path.join(outside, 'not-yet.ts'), path.join(root, 'app/dangling.ts'));
    await until(() => !made.noLinkLeadsOut());
    expect(made.noLinkLeadsOut(), 'dangling, outside').to.equal(false);
    fs.rmSync(path.join(root, 'app/dangling.ts'));
    await until(() => made.noLinkLeadsOut());

    // A dot-directory is not walked: a link there is not seen, so one leading into it counts.
    fs.symlinkSync('.gen/x.ts', path.join(root, 'app/generated.ts'));
    await until(() => !made.noLinkLeadsOut());
    expect(made.noLinkLeadsOut(), 'into a dot-directory').to.equal(false);
    fs.rmSync(path.join(root, 'app/generated.ts'));
    await until(() => made.noLinkLeadsOut());

    // A link inside node_modules is an installed package's: not watched, not counted.
    fs.symlinkSync(path.join(outside, 'dir'), path.join(root, 'node_modules/pkg/far'));
    // A directory made with a link leading out already in it (walked in a later slice), and one
    // moved in whole (no notice names what it holds).
    fs.mkdirSync(path.join(root, 'app/made'));
    fs.symlinkSync(path.join(outside, 'dir'), path.join(root, 'app/made/far'));
    await until(() => !made.noLinkLeadsOut());
    expect(made.noLinkLeadsOut(), 'in a directory made').to.equal(false);
    fs.rmSync(path.join(root, 'app/made'), { recursive: true });
    await until(() => made.noLinkLeadsOut());
    expect(made.noLinkLeadsOut(), 'that directory removed, the installed package aside').to.equal(true);
    const moved = tempWorkspace({ 'y.ts': '' });
    fs.symlinkSync(path.join(outside, 'secret.ts'), path.join(moved, 'far.ts'));
    fs.renameSync(moved, path.join(root, 'app/moved'));
    await until(() => !made.noLinkLeadsOut());
    expect(made.noLinkLeadsOut(), 'in a directory moved in').to.equal(false);
    fs.renameSync(path.join(root, 'app/moved'), moved);
    await until(() => made.noLinkLeadsOut());
    expect(made.noLinkLeadsOut(), 'moved out again').to.equal(true);
  });

  it('does not vouch past the watch limit, nor once closed', async () => {
    const root = tempWorkspace({ 'app/main/index.ts': '' });
    let complete = false;
    const made = await watched(root, () => complete);
    expect(made.noLinkLeadsOut(), 'past the limit').to.equal(false);
    complete = true;
    expect(made.noLinkLeadsOut()).to.equal(true);
    await made.close();
    expect(made.noLinkLeadsOut(), 'closed').to.equal(false);
  });
});
