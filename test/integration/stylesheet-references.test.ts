// A stylesheet's `@import` or `url()` that names no file (README "Workspaces") makes its
// module invalid in /state, at its place, instead of a valid module whose page asks for the
// reference at the sheet's own address and misses its rules; making the file it names builds the
// module again before the next answer.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

interface StateModule {
  specifier: string;
  status: string;
  diagnostics: { kind: string; message: string; file?: string; line?: number; column?: number }[];
}

describe('stylesheet references that name no file, in /state', () => {
  it('lists the module invalid at the @import of another package\'s sheet, and at a typo, until the file is made', async () => {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app', 'packages/lib'], preview: '@p/app/main' }),
      'packages/lib/package.json': json({ name: '@p/lib', version: '1.0.0', exports: { './theme.css': './theme.css' } }),
      'packages/lib/theme.css': ':root { --accent: rgb(200, 0, 0); }\n',
      'packages/app/package.json': json({ name: '@p/app', version: '1.0.0', exports: { './main': './main/index.ts', './typo': './typo/index.ts' }, dependencies: { '@p/lib': '*' } }),
      'packages/app/main/index.ts': "import './style.css';\nexport const main = 1;\n",
      'packages/app/main/style.css': "@import '@p/lib/theme.css';\nbody { color: var(--accent); }\n",
      'packages/app/typo/index.ts': "import './typo.css';\nexport const typo = 1;\n",
      'packages/app/typo/typo.css': '@import "base.css";\n.typo { color: rgb(1, 2, 3); }\n',
    });
    const service = await serve(root);
    const modules = async () => new Map((await service.get('/state')).json<{ modules: StateModule[] }>().modules.map((m) => [m.specifier, m]));
    try {
      const state = await modules();
      const main = state.get('@p/app/main')!;
      expect(main.status).to.equal('invalid');
      expect(main.diagnostics.map(({ kind, file, line, column }) => ({ kind, file, line, column }))).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: 'packages/app/main/style.css', line: 1, column: 9 }]);
      expect(main.diagnostics[0]!.message).to.include("import '@p/lib/theme.css'");
      expect(state.get('@p/lib/theme.css')!.status).to.equal('valid');
      const typo = state.get('@p/app/typo')!;
      expect(typo.status).to.equal('invalid');
      expect(typo.diagnostics.map(({ kind, file, line }) => ({ kind, file, line }))).to.deep.equal([{ kind: 'BUNDLE_ERROR', file: 'packages/app/typo/typo.css', line: 1 }]);
      // The file the @import names, made: the next answer builds the module from it.
      fs.writeFileSync(path.join(root, 'packages/app/typo/base.css'), '.base { margin: 0; }\n');
      expect((await modules()).get('@p/app/typo')!.status).to.equal('valid');
      const styles = await service.get('/m/@p/app@1.0.0/styles/typo');
      expect(styles.status).to.equal(200);
      expect(styles.text).to.include('.base').and.not.to.include('@import');
    } finally {
      await service.close();
    }
  });
});
