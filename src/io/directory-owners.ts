// Each directory is walked once, by device and inode (README "Links and large trees"): the first
// workspace-relative path that reaches it owns it; a second path to it (a link inside the
// workspace) is remembered as an alias of the owner, so a change seen under the one is reported
// under the other too; a path inside the directory it shows is a loop, by which no file is known.

export interface DirectoryOwners {
  /** Whether `relative`, a directory whose `dev:ino` is `key`, is walked by this path: false when another path owns it. */
  claim(key: string, relative: string): boolean;
  /** Other workspace-relative paths of `relative` (through links to a directory inside the workspace). */
  aliases(relative: string): string[];
  /** The directory `relative` was removed: forgets what lies within it; returns the aliases that lost their owner (another path may now walk it). */
  forget(relative: string): string[];
}

export function createDirectoryOwners(): DirectoryOwners {
  /** `dev:ino` of each directory walked, to the workspace-relative path that walks it. */
  const owners = new Map<string, string>();
  /** A walked directory's relative path to the other relative paths of the same directory. */
  const aliasesOf = new Map<string, Set<string>>();

  return {
    claim(key, relative) {
      const owner = owners.get(key);
      if (owner === undefined || owner === relative) {
        owners.set(key, relative);
        return true;
      }
      const loop = owner === '.' || relative.startsWith(`${owner}/`);
      if (!loop) {
        let aliases = aliasesOf.get(owner);
        if (!aliases) aliasesOf.set(owner, (aliases = new Set()));
        aliases.add(relative);
      }
      return false;
    },
    aliases(relative) {
      if (aliasesOf.size === 0) return [];
      const found: string[] = [];
      for (const [owner, aliases] of aliasesOf) {
        // `rest` is '' or starts with '/'; the workspace root has no aliases (a link to it is a loop).
        const rest = relative === owner ? '' : relative.startsWith(`${owner}/`) ? relative.slice(owner.length) : null;
        if (rest === null) continue;
        for (const alias of aliases) found.push(`${alias}${rest}`);
      }
      return found;
    },
    forget(relative) {
      const within = (candidate: string) => candidate === relative || candidate.startsWith(`${relative}/`);
      for (const [key, owner] of owners) if (within(owner)) owners.delete(key);
      const orphans: string[] = [];
      for (const [owner, aliases] of aliasesOf) {
        if (within(owner)) {
          orphans.push(...aliases);
          aliasesOf.delete(owner);
        } else {
          for (const alias of aliases) if (within(alias)) aliases.delete(alias);
        }
      }
      return orphans;
    },
  };
}
