// The version of a package installed in node_modules, looked up as Node would resolve it
// from a workspace package's directory.
import fs from 'node:fs';
import path from 'node:path';

export function createInstalledVersions(root: string): (name: string, packageDir: string) => string | null {
  return (name, packageDir) => {
    let dir = path.resolve(root, packageDir);
    for (;;) {
      try {
        const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version?: unknown };
        if (typeof manifest.version === 'string') return manifest.version;
      } catch {
        // not installed here: look further up
      }
      const parent = path.dirname(dir);
      if (parent === dir) return null;
      dir = parent;
    }
  };
}
