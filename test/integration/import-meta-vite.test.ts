// Vite's `import.meta.env` in /state (README "Bundling real code"): a module reading it is invalid
// at the read, saying how to define it; a package that defines it in `core.define` is valid and
// serves the value.
import { expect } from 'chai';
import { serve } from '../helpers/service.js';
import { tempWorkspace } from '../helpers/workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

describe("Vite's import.meta.env, in /state", () => {
  it('lists a module reading it invalid at the read, and one whose package defines it valid with the value', async () => {
    const root = tempWorkspace({
      'core.json': json({ packages: ['packages/app', 'packages/lib'] }),
      'packages/app/package.json': json({ name: '@v/app', version: '1.0.0', exports: { './main': './main/index.ts' } }),
      'packages/app/main/index.ts': "export const debug = import.meta.env.DEV ? 'debug' : 'quiet';\n",
      'packages/lib/package.json': json({ name: '@v/lib', version: '1.0.0', exports: { '.': './index.ts' }, core: { define: { 'import.meta.env.VITE_API': '"https://api.test"' } } }),
      'packages/lib/index.ts': 'export const api = import.meta.env.VITE_API;\n',
    });
    const service = await serve(root);
    try {
      const modules = new Map((await service.report()).modules.map((m) => [m.specifier, m]));
      expect(modules.get('@v/app/main')!.status).to.equal('invalid');
      expect(modules.get('@v/app/main')!.diagnostics.map(({ kind, file, line, column }) => ({ kind, file, line, column }))).to.deep.equal([
        { kind: 'BUNDLE_ERROR', file: 'packages/app/main/index.ts', line: 1, column: 22 },
      ]);
      expect(modules.get('@v/lib')!.status).to.equal('valid');
      expect((await service.get('/m/@v/lib@1.0.0/modules/@root')).text).to.include('https://api.test');
    } finally {
      await service.close();
    }
  });
});
