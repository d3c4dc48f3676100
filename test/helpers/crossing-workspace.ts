// A workspace whose modules import another module's entry from TypeScript (README "Bundling real
// code"), re-exporting a name that is a type in a file that entry re-exports from.
import type { ServiceState } from '../../src/store/state.js';
import { inlineWorkspace } from './workspace.js';

export const PART = 'packages/lib/src/part.ts';
export const PLAIN = 'packages/lib/src/plain.ts';

/** `plain` re-exports all of `part.ts`, where `Part` is a type; `main` (and `other`) re-export `Part` and `plain` from plain's entry. */
export function crossingWorkspace(): string {
  return inlineWorkspace({
    'packages/lib': {
      manifest: { name: '@t/lib', version: '1.0.0', type: 'module', exports: { './plain': './src/plain.ts', './main': './src/main.ts', './other': './src/other.ts' } },
      files: {
        'src/part.ts': 'export type Part = { name: string };\n',
        'src/plain.ts': "export * from './part.ts';\nexport const plain = 1;\n",
        'src/main.ts': "export { Part, plain } from './plain.ts';\n",
        'src/other.ts': "export { Part, plain } from './plain.ts';\nexport const other = 2;\n",
      },
    },
  });
}

/** The last build of `module`'s default variant. */
export function lastBuild(state: ServiceState, module: string) {
  const variants = Object.values(state.builds[module]!.variants);
  return variants.find((variant) => variant.eager)!.last!;
}

