// The code of a file-system error, read the same way by the tree watcher and the watch scope.

/** The code of a file-system error; EUNKNOWN for something thrown without one. */
export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code) ? code : 'EUNKNOWN';
}

/**
 * Whether `code` says the path leads to nothing: ENOENT, ENOTDIR (a file where a directory was
 * named), or ELOOP (a loop of links: like a dangling link, a link the walk does not follow,
 * watch-scope.ts, so a running watcher and a fresh walk see the same tree).
 */
export function isAbsence(code: string): boolean {
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP';
}
