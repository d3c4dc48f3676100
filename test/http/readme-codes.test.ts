// The README's tables of error codes and diagnostic kinds are the code's: they are written from
// the one table (src/codes.ts) by scripts/write-readme-codes.js, and a code added, removed or
// changed without the README saying so fails here.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { DIAGNOSTIC_KINDS, ERROR_CODES, renderCodeTables } from '../../src/codes.js';
import { PROJECT_DIR } from '../helpers/workspace.js';

const readme = fs.readFileSync(path.join(PROJECT_DIR, 'README.md'), 'utf8');
const START = '<!-- codes: written from src/codes.ts by scripts/write-readme-codes.js -->';
const section = readme.slice(readme.indexOf(START) + START.length, readme.indexOf('<!-- /codes -->'));

describe('the README error tables', () => {
  it('are the tables rendered from src/codes.ts (run scripts/write-readme-codes.js after a change)', () => {
    expect(readme).to.include(START);
    expect(section.trim()).to.equal(renderCodeTables());
  });

  it('list every code with its status, and every diagnostic kind, one row each', () => {
    const rows = [...section.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)].map((match) => [match[1], Number(match[2])]);
    expect(rows).to.deep.equal(Object.entries(ERROR_CODES).map(([code, { status }]) => [code, status]));
    const kinds = [...section.matchAll(/^\| `([A-Z_]+)` \| (error|warning) \|/gm)].map((match) => match[1]);
    expect(kinds).to.deep.equal(Object.keys(DIAGNOSTIC_KINDS));
    expect(kinds).to.include.members(['BUNDLE_ERROR', 'MANIFEST_INVALID', 'BUNDLE_WARNING', 'LOAD_FAILED']);
  });

  it('give every code and kind a remedy, and no code a second status', () => {
    for (const [code, entry] of [...Object.entries(ERROR_CODES), ...Object.entries(DIAGNOSTIC_KINDS)]) {
      expect(entry.remedy, code).to.be.a('string').with.length.above(8);
      expect(entry.when, code).to.be.a('string').with.length.above(8);
    }
    for (const entry of Object.values(ERROR_CODES)) expect(entry.status).to.be.within(400, 599);
  });
});
