// A module bundles files of the workspace only (README "Links and large trees"): a relative
// import, or a symbolic link, whose real path leads out of the workspace is refused at the
// import, never read. Its content would be served as if it were the workspace's, and no watch
// or check would ever see it change. Installed packages (`node_modules`) stay allowed, as
// before. The filter is evaluated by esbuild in Go on the real path it is about to load, so a
// file inside the workspace never costs a call into JavaScript.
import fs from 'node:fs';
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { notStartingWith } from '../filters.js';

const realRoots = new Map<string, string>();

function realRootOf(root: string): string {
  let real = realRoots.get(root);
  if (real === undefined) {
    try {
      real = fs.realpathSync.native(root);
    } catch {
      real = root; // absent: the build says so
    }
    realRoots.set(root, real);
  }
  return real;
}

/** The plugin's name, which esbuild gives each of its messages (`pluginName`). */
export const WORKSPACE_CONFINEMENT = 'core-workspace-confinement';

export function workspaceConfinementPlugin(root: string): esbuild.Plugin {
  const real = realRootOf(root);
  const inside = (file: string) => file.startsWith(real + path.sep) || file.startsWith(root + path.sep);
  return {
    name: WORKSPACE_CONFINEMENT,
    setup(build) {
      build.onLoad({ filter: notStartingWith(real + path.sep), namespace: 'file' }, (args) => {
        if (inside(args.path) || args.path.split(path.sep).includes('node_modules')) return undefined;
        const shown = path.relative(real, args.path).split(path.sep).join('/');
        return { errors: [{ text: `${shown} is outside the workspace, and is not read: a module bundles files of the workspace only; move the file into the workspace, or import it as a package` }] };
      });
    },
  };
}
