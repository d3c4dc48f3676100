// The README's table of error codes and its list of diagnostic kinds are the code's: a code
// added, removed or given another status without the README saying so fails here.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ERRORS } from '../../src/http/errors.js';
import { PROJECT_DIR } from '../helpers/workspace.js';

const readme = fs.readFileSync(path.join(PROJECT_DIR, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('## Error codes'), readme.indexOf('\n## ', readme.indexOf('## Error codes') + 3));

describe('the README error table', () => {
  it('lists exactly the codes of ERRORS, each with its status', () => {
    const rows = [...section.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)].map((match) => [match[1], Number(match[2])]);
    expect(rows).to.deep.equal(Object.entries(ERRORS).map(([code, { status }]) => [code, status]));
  });

  it('names every diagnostic kind', () => {
    const source = fs.readFileSync(path.join(PROJECT_DIR, 'src/workspace/diagnostics.ts'), 'utf8');
    const union = source.slice(source.indexOf('export type DiagnosticKind'), source.indexOf(';', source.indexOf('export type DiagnosticKind')));
    const kinds = [...union.matchAll(/'([A-Z_]+)'/g)].map((match) => match[1]!);
    expect(kinds.length).to.be.greaterThan(5);
    for (const kind of kinds) expect(section, kind).to.include(`\`${kind}\``);
  });
});
