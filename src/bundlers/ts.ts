// The `ts` bundler (`@core-js/packages/bundlers/ts`): TypeScript sources (.ts, .tsx; a
// .d.ts emits no code), plain JavaScript and CSS, and declared assets, compiled by esbuild.
import { createEsbuildEngine } from './esbuild-engine.js';
import type { CreateBundler } from './types.js';

export const createBundler: CreateBundler = (options) =>
  createEsbuildEngine({
    ...options,
    refuse: { filter: /\.jsx$/, reason: 'the ts bundler compiles .ts, .tsx, .js and .css sources; select the esbuild bundler for .jsx' },
  });

export type { Bundler, BundlerOptions, BundleResult, BundleTarget } from './types.js';
