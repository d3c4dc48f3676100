// A workspace whose modules reach names through shared files (README "Shared files"), in every
// shape a page links by: `export * from`, `export { y } from`, `export * as ns from` a shared file,
// two levels of `export *` through shared files, and a shared file re-exporting a public module.
import { tempWorkspace } from './workspace.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** @s/lib: `star`, `named`, `namespace` and `deep` reach src/x.ts (and src/mid.ts, src/leaf.ts) with `user`, so each file is shared. */
export const sharedLinksWorkspace = () =>
  tempWorkspace({
    'core.json': json({ packages: ['packages/lib', 'packages/app', 'packages/base'] }),
    'packages/base/package.json': json({ name: '@s/base', version: '1.0.0', exports: { './m': './m.ts' } }),
    'packages/base/m.ts': "export const fromBase = 'B';\n",
    'packages/lib/package.json': json({
      name: '@s/lib',
      version: '1.0.0',
      exports: { './star': './src/star.ts', './named': './src/named.ts', './namespace': './src/namespace.ts', './deep': './src/deep.ts', './user': './src/user.ts', './inner': './src/inner.ts' },
      dependencies: { '@s/base': '1.0.0' },
    }),
    // A shared file re-exporting a public module of another package, too.
    'packages/lib/src/x.ts': "export const x = 'X';\nexport const y = 'Y';\nexport * from '@s/base/m';\n",
    'packages/lib/src/star.ts': "export * from './x';\n",
    'packages/lib/src/named.ts': "export { y } from './x';\n",
    'packages/lib/src/namespace.ts': "export * as ns from './x';\n",
    // Two levels of `export *` through shared files.
    'packages/lib/src/deep.ts': "export * from './mid';\n",
    'packages/lib/src/mid.ts': "export * from './leaf';\n",
    'packages/lib/src/leaf.ts': "export const leaf = 'L';\n",
    'packages/lib/src/user.ts': "import { leaf } from './mid';\nimport { x } from './x';\nexport const user = leaf + x;\n",
    // Within the package: a module importing a name another reaches through a shared file.
    'packages/lib/src/inner.ts': "import { x, fromBase } from '@s/lib/star';\nexport const inner = x + fromBase;\n",
    'packages/app/package.json': json({ name: '@s/app', version: '1.0.0', exports: { './main': './main.ts' }, dependencies: { '@s/lib': '1.0.0' } }),
    'packages/app/main.ts': [
      "import { x, fromBase } from '@s/lib/star';",
      "import { y } from '@s/lib/named';",
      "import { ns } from '@s/lib/namespace';",
      "import { leaf } from '@s/lib/deep';",
      "import { inner } from '@s/lib/inner';",
      "document.body.dataset.result = [x, fromBase, y, ns.x, leaf, inner].join(',');",
      '',
    ].join('\n'),
  });


/** @b/lib: `one` and `two` import src/a.ts, which imports names of src/b.ts: both files shared, a.ts importing from b.ts. */
export const sharedBetweenWorkspace = () =>
  tempWorkspace({
    'core.json': json({ packages: ['packages/lib'], preview: '@b/lib/one' }),
    'packages/lib/package.json': json({ name: '@b/lib', version: '1.0.0', exports: { './one': './src/one.ts', './two': './src/two.ts' } }),
    'packages/lib/src/b.ts': "export const registry: string[] = [];\nexport const extra = 'E';\n",
    'packages/lib/src/a.ts': "import { registry, extra } from './b.ts';\nexport const a = `${registry.length}${extra}`;\n",
    'packages/lib/src/one.ts': "import { a } from './a.ts';\ndocument.body.dataset.result = `one ${a}`;\n",
    'packages/lib/src/two.ts': "import { a } from './a.ts';\nexport const two = a;\n",
  });
