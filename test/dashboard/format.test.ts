// How the dashboard words numbers: a size never parts from its unit, a count agrees with its noun.
import { expect } from 'chai';
import { allValidHeading, bytes } from '../../src/dashboard/client/format.js';

describe('dashboard formats', function () {
  it('joins a size to its unit with a no-break space', function () {
    expect(bytes(512)).to.equal('512\u00a0B');
    expect(bytes(5734)).to.equal('5.6\u00a0KB');
    expect(bytes(3 * 1024 * 1024)).to.equal('3.0\u00a0MB');
  });

  it('words the all-valid heading for one module and for several', function () {
    expect(allValidHeading(1)).to.equal('The built module is valid');
    expect(allValidHeading(12)).to.equal('All 12 built modules are valid');
  });
});
