// A build's findings as every copy of a record takes them (src/store/events.ts `findingsOf`).
import { expect } from 'chai';
import { findingsOf } from '../../src/store/events.js';

describe('findingsOf', () => {
  it("copies every finding of a build record, and only them: not its number, errors or outputs", () => {
    const warning = { kind: 'BUNDLE_WARNING', file: 'app/a.ts', line: 1, message: 'w' } as const;
    const record = {
      build: 3,
      errors: [],
      outputs: { code: { hash: 'c', size: 1 }, styles: null },
      imports: [],
      inputs: { 'app/a.ts': 'a', 'app/b.ts ->': null },
      resolution: ['app/b.ts ->'],
      warnings: [warning],
      shared: ['app/h.ts'],
    };
    expect(findingsOf(record as Parameters<typeof findingsOf>[0])).to.deep.equal({ imports: [], inputs: record.inputs, resolution: ['app/b.ts ->'], warnings: [warning], shared: ['app/h.ts'] });
  });
  it('leaves out the optional findings a record has not (no member set to undefined)', () => {
    expect(Object.keys(findingsOf({ imports: [], inputs: {} }))).to.deep.equal(['imports', 'inputs']);
  });
});
