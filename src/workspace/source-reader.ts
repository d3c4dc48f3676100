// What the workspace's pure functions read through (README "Workspaces"): the service's files,
// or a map of them in tests.
export interface SourceReader {
  /** The text of a workspace-relative file and its content hash; null when it is absent. */
  readText(path: string): { text: string; hash: string } | null;
  /**
   * The entries of a workspace-relative directory and a hash of their names; null when absent. `id`: the same for every path to one directory.
   * `special`: what an entry is when its type in the listing says it is no regular file (`a FIFO (named pipe)`).
   * `link`: the entry itself is a symbolic link (its listing's type, no stat), whatever it leads to.
   */
  listDir(path: string): { entries: { name: string; directory: boolean; special?: string; link?: true }[]; hash: string; id?: string } | null;
  /** Does the path lead out of the workspace through a symbolic link (which is not followed)? */
  leaves?(path: string): boolean;
  /** The path with links resolved (a `node_modules` link of pnpm), as tsc resolves `extends`. */
  realPath?(path: string): string | null;
  /**
   * The hash of where a path leads (the input `<path> ->`, `LINK_TARGET`), as the check before
   * every answer takes it again: a link retargeted changes it, though no listing or file does.
   */
  linkHash?(path: string): string | null;
}
