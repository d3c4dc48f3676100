// What follows a package name in a specifier this service can publish (README "Exports and
// sources"): plain segments only. It imports nothing, so a page's bundle may check a name too.
const SUBPATH = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*$/;
export const isSubpath = (subpath: string): boolean => SUBPATH.test(subpath) && !subpath.split('/').some((s) => s === '.' || s === '..');
