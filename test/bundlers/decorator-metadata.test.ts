// `emitDecoratorMetadata` in a tsconfig (src/bundlers/decorator-metadata.ts, README "Bundling real
// code"): esbuild writes no `design:*` metadata, so a decorated module under such a config is told,
// an error when its code reads that metadata (the page's container fails), else a warning.
import { expect } from 'chai';
import * as esbuildApi from 'esbuild';
import { collect } from '../../src/bundlers/build-results.js';
import { esbuildOptions } from '../../src/bundlers/esbuild-options.js';
import type { BundleTarget } from '../../src/bundlers/types.js';
import { developmentVariant } from '../../src/workspace/variant.js';
import { tempWorkspace } from '../helpers/workspace.js';

const CONFIG = JSON.stringify({ compilerOptions: { experimentalDecorators: true, emitDecoratorMetadata: true } });
const DECORATED = 'function injectable() { return (target: unknown) => {}; }\n/** @param logger the log */\n@injectable()\nexport class Service { constructor(public logger: string) {} }\n';
const READER = "const meta = new Map<unknown, Record<string, unknown>>();\nexport const typesOf = (c: unknown) => meta.get(c)?.['design:paramtypes'];\n";

describe('a decorated module under a tsconfig with emitDecoratorMetadata', () => {
  const root = tempWorkspace({
    'meta/tsconfig.json': CONFIG,
    'meta/plain/index.ts': DECORATED,
    'meta/reads/index.ts': `${DECORATED}${READER}`,
    'meta/undecorated/index.ts': '// @injectable() in a comment\nexport const at = "user @example";\n',
    'none/tsconfig.json': JSON.stringify({ compilerOptions: { experimentalDecorators: true } }),
    'none/plain/index.ts': DECORATED,
  });
  const judged = async (dir: string) => {
    const target: BundleTarget = { specifier: `@t/${dir}`, subpath: dir, dir, entry: `${dir}/index.ts`, assets: [], platforms: ['web'] };
    const variant = developmentVariant('browser');
    const result = collect(root, target, 0, await esbuildApi.build(esbuildOptions(root, [target], variant)), variant);
    const told = (list: typeof result.errors) => list.filter(({ message }) => message.includes('emitDecoratorMetadata')).map(({ kind, file, line, column, message }) => ({ kind, file, line, column, config: message.startsWith('meta/tsconfig.json sets') }));
    return { errors: told(result.errors), warnings: told(result.warnings ?? []) };
  };

  it('warns at the first decorator, naming the config, when nothing in the module reads the metadata', async () => {
    expect(await judged('meta/plain')).to.deep.equal({ errors: [], warnings: [{ kind: 'BUNDLE_WARNING', file: 'meta/plain/index.ts', line: 3, column: 1, config: true }] });
  });

  it('refuses it when its code reads design:paramtypes, which no build of esbuild writes', async () => {
    expect(await judged('meta/reads')).to.deep.equal({ errors: [{ kind: 'BUNDLE_ERROR', file: 'meta/reads/index.ts', line: 3, column: 1, config: true }], warnings: [] });
  });

  it('tells neither a module with no decorator nor a config without the option', async () => {
    expect(await judged('meta/undecorated')).to.deep.equal({ errors: [], warnings: [] });
    expect(await judged('none/plain')).to.deep.equal({ errors: [], warnings: [] });
  });
});
