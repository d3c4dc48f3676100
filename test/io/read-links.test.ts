// What a workspace read asked of links (README "A team's remote cache", "The build cache"): a
// directory it reached a second time through a link it walked once, and no listing's hash shows
// which path it skipped, so the real paths of both are recorded and checked again.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createFileHashes } from '../../src/io/file-hashes.js';
import { holdsHere } from '../../src/io/remote-cache/model-entry.js';
import { linksHold, recordingLinks } from '../../src/io/read-links.js';
import { onePassReader } from '../../src/io/workspace-reads.js';
import { readWorkspace } from '../../src/workspace/read-workspace.js';
import { fixtureWorkspace } from '../helpers/fixtures.js';

const readRecording = (root: string) => {
  const { reader, links } = recordingLinks(onePassReader(createFileHashes(root)));
  return { model: readWorkspace(reader, []), links };
};
const specifiers = (root: string) => readRecording(root).model.modules.map((module) => module.specifier);

describe('recordingLinks', () => {
  it('records both paths of a directory reached twice, so a checkout where the link is a directory of the same names does not hold', async () => {
    const root = fixtureWorkspace('basic');
    // A link to its own directory: the read lists it once more and skips it.
    fs.symlinkSync('.', path.join(root, 'packages/lib/widgets/loop'));
    const { model, links } = readRecording(root);
    expect(links.realPaths).to.include({ 'packages/lib/widgets': 'packages/lib/widgets', 'packages/lib/widgets/loop': 'packages/lib/widgets' });
    expect(linksHold(links, createFileHashes(root))).to.equal(true);

    // Here the link is a directory holding the same names, a module below it.
    fs.rmSync(path.join(root, 'packages/lib/widgets/loop'));
    fs.mkdirSync(path.join(root, 'packages/lib/widgets/loop/loop'), { recursive: true });
    fs.cpSync(path.join(root, 'packages/lib/widgets/badge'), path.join(root, 'packages/lib/widgets/loop/badge'), { recursive: true });
    // Every source hashes as recorded (the listing has the same names), yet a read here finds one more module.
    const hashes = createFileHashes(root);
    expect(await holdsHere(model.sources, hashes)).to.equal(true);
    expect(specifiers(root)).to.include('@acme/lib/widgets/loop/badge');
    expect(model.modules.map((module) => module.specifier)).to.not.include('@acme/lib/widgets/loop/badge');
    expect(linksHold(links, hashes)).to.equal(false);
  });

  it('records no real path for a read that reaches each directory once, but where each package directory leads (itself, without links)', () => {
    const { links } = readRecording(fixtureWorkspace('basic'));
    // The model names the directories reached through a link (README "Links and large trees").
    expect(links.realPaths).to.deep.equal({ 'packages/app': 'packages/app', 'packages/lib': 'packages/lib' });
  });
});
