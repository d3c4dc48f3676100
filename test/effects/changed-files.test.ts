// When the paths the watcher is told of are read (src/effects/changed-files.ts): the first notice
// of a turn at once, the others of the same turn together at its end.
import { expect } from 'chai';
import { asapScheduler } from 'rxjs';
import { createChangedFiles, type ChangedFiles } from '../../src/effects/changed-files.js';
import { createFileHashes } from '../../src/io/file-hashes.js';
import { contentHash } from '../../src/outputs/content-hash.js';
import { write } from '../helpers/edit.js';
import { tempWorkspace } from '../helpers/workspace.js';

const endOfTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('createChangedFiles', () => {
  let changes: ChangedFiles | undefined;
  afterEach(() => changes?.close());

  function start(files: Record<string, string>) {
    const root = tempWorkspace(files);
    const recorded = new Map(Object.entries(files).map(([relative, text]) => [relative, new Set([contentHash(text)])]));
    const reports: Record<string, string | null>[] = [];
    changes = createChangedFiles({
      hashes: createFileHashes(root),
      scheduler: asapScheduler,
      settleMs: 60_000,
      truncationMs: 60_000,
      aliases: () => [],
      recorded: (paths) => new Map([...paths].flatMap((relative) => (recorded.has(relative) ? [[relative, recorded.get(relative)!] as const] : []))),
      changed: (changed) => void reports.push(changed),
      guard: (callback) => callback,
    });
    return { root, reports, write: (relative: string, text: string) => write(root, relative, text) };
  }

  it('reads the paths of the first notice of a turn as it comes, not at the end of the turn', () => {
    const { reports, write } = start({ 'a.css': 'a {}', 'b.css': 'b {}' });
    write('a.css', 'a { color: red }');
    changes!.look(['a.css', 'b.css']);
    expect(reports, 'reported in the same turn').to.deep.equal([{ 'a.css': contentHash('a { color: red }') }]);
  });

  it('reads the notices that follow in the same turn together, once it ends', async () => {
    const { reports, write } = start({ 'a.css': 'a {}', 'b.css': 'b {}', 'c.css': 'c {}' });
    write('a.css', 'a { color: red }');
    changes!.look(['a.css']);
    write('b.css', 'b { color: red }');
    write('c.css', 'c { color: red }');
    changes!.look(['b.css']);
    changes!.seen(['c.css']);
    expect(reports).to.have.length(1);
    await endOfTurn();
    expect(reports).to.deep.equal([{ 'a.css': contentHash('a { color: red }') }, { 'b.css': contentHash('b { color: red }'), 'c.css': contentHash('c { color: red }') }]);
    // A later turn's first notice is read at once again.
    write('a.css', 'a { color: blue }');
    changes!.look(['a.css']);
    expect(reports).to.have.length(3);
  });
});
