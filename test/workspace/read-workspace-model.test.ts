// The model of a workspace of many shapes (test/helpers/many-shapes.ts), pinned as the read
// derived it before the read was made faster: every module, diagnostic, warning and source in
// the same order, through the pure read and through the service's one-pass reader.
import fs from 'node:fs';
import { expect } from 'chai';
import { onePassReader } from '../../src/io/workspace-reads.js';
import { readWorkspace } from '../../src/workspace/read-workspace.js';
import { memoryReader } from '../helpers/memory-reader.js';
import { MANY_SHAPES_DEEP_IMPORTS, manyShapesFiles } from '../helpers/many-shapes.js';

const pinned = fs.readFileSync(new URL('./read-workspace-model.json', import.meta.url), 'utf8');
const asPinned = (model: unknown) => `${JSON.stringify(model, null, 1)}\n`;

describe('readWorkspace, a workspace of many shapes', () => {
  it('derives the pinned model: modules, diagnostics, warnings and sources, in order', () => {
    const model = readWorkspace(memoryReader(manyShapesFiles()), MANY_SHAPES_DEEP_IMPORTS);
    expect(model.modules.length, 'the pin holds the modules of every shape').to.equal(24);
    expect(asPinned(model)).to.equal(pinned);
  });

  it('derives the same model through the service one-pass reader', () => {
    expect(asPinned(readWorkspace(onePassReader(memoryReader(manyShapesFiles())), MANY_SHAPES_DEEP_IMPORTS))).to.equal(pinned);
  });
});
