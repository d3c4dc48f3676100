// The `esbuild` bundler (`@core-js/packages/bundlers/esbuild`): every source esbuild
// understands. Form 2 of the registry may name its compiler: `processors.bundle.compiler`
// must then be "esbuild".
import { createEsbuildEngine } from './esbuild-engine.js';
import type { CreateBundler } from './types.js';

export const createBundler: CreateBundler = (options) => {
  const bundle = options.processors?.bundle as { compiler?: unknown } | undefined;
  if (bundle?.compiler !== undefined && bundle.compiler !== 'esbuild') {
    throw new Error(`processors.bundle.compiler "${String(bundle.compiler)}" is not supported by @core-js/packages/bundlers/esbuild; use "esbuild"`);
  }
  return createEsbuildEngine(options);
};

export type { Bundler, BundlerOptions, BundleResult, BundleTarget } from './types.js';
