// A module of the test package `@t/app` as a bundler is given it (src/bundlers/types.ts): one per
// directory `app/<name>/` of a temporary workspace, its entry `index.ts`.
import type { BundleTarget } from '../../src/bundlers/types.js';

export const appTarget = (name: string, more: Partial<BundleTarget> = {}): BundleTarget => ({
  specifier: `@t/app/${name}`,
  subpath: name,
  dir: `app/${name}`,
  entry: `app/${name}/index.ts`,
  assets: [],
  platforms: ['web'],
  ...more,
});
