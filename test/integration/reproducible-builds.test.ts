// Production output is a function of the sources alone (README "core dist"): whatever edits a
// running service built in between, each production answer is byte for byte what a fresh
// `core dist` of the same sources writes.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { distribute } from '../../src/dist/distribute.js';
import { fixtureWorkspace, PROD } from '../helpers/fixtures.js';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const LIB = '@acme/lib@1.2.0';
const CODE = 'packages/lib/format/internal/pad.ts';
const SHEET = 'packages/lib/format/format.css';

// Edits of the code and of the stylesheet, each making the names the minifier picks differ.
const codeEdits = ["export const padding = 'qqqqqqqqqqqqqqqq';\n", "export const padding = 'jjjjjjjjjjjjjjjjjjjjjjjjj';\n"];
const sheetEdits = ['.format { color: red; }\n', ".format { color: blue; background: url('data:,zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz'); }\n", ".format::after { content: 'kkkkkkkkkkkkkkkkkkkkkkkkk'; }\n"];

describe('production output, whatever the edit history', function () {
  this.timeout(60_000);

  for (const order of [['code', 'sheet'], ['sheet', 'code'], ['code', 'sheet', 'sheet', 'code', 'sheet']]) {
    it(`answers what a fresh core dist writes, after edits of the ${order.join(', then the ')}`, async () => {
      const root = fixtureWorkspace('basic', { [SHEET]: '.format { color: green; }\n' });
      const entry = path.join(root, 'packages/lib/format/index.ts');
      fs.writeFileSync(entry, `import './format.css';\n${fs.readFileSync(entry, 'utf8')}`);
      const pad = fs.readFileSync(path.join(root, CODE), 'utf8');
      const service = await serve(root);
      const answers = async () => [(await service.get(`/m/${LIB}/modules/format?${PROD}`)).text, (await service.get(`/m/${LIB}/styles/format?${PROD}`)).text];
      await answers();
      let codes = 0;
      let sheets = 0;
      for (const [step, kind] of order.entries()) {
        if (kind === 'code') fs.writeFileSync(path.join(root, CODE), `${pad}${codeEdits[codes++ % codeEdits.length]}`);
        else fs.writeFileSync(path.join(root, SHEET), sheetEdits[sheets++ % sheetEdits.length]!);
        const [code, styles] = await answers();
        const out = tempWorkspace();
        expect((await distribute({ root, out, parallelism: 1 })).ok).to.equal(true);
        expect(code, `the code after step ${step + 1}`).to.equal(fs.readFileSync(path.join(out, LIB, 'modules/format.js'), 'utf8'));
        expect(styles, `the stylesheet after step ${step + 1}`).to.equal(fs.readFileSync(path.join(out, LIB, 'styles/format.css'), 'utf8'));
      }
    });
  }
});
