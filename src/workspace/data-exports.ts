// An `exports` name Node resolves to data (JSON, an image) that this service publishes no module
// for: the words said at the package and to each importer of the name (README "Exports and sources").

/** Why the name `<packageName>/<subpath>`, mapped to `target`, has no module here, and what to do instead. */
export function dataExportReason(packageName: string, subpath: string, target: string): string {
  const file = target.split('/').pop()!;
  const what = /\.json$/i.test(target) ? 'is JSON' : 'is neither code nor a stylesheet';
  // A code module imported with `{ type: 'json' }` fails in browsers: the hint says to drop it.
  const reExport = `\`export { default } from './${file}' with { type: 'json' }\``;
  const instead =
    subpath === 'package.json'
      ? `to read it in a browser, re-export it (or the fields you need) from a module of ${packageName} (a source importing its package.json with { type: 'json' }) and import that module, without { type: 'json' }`
      : /\.json$/i.test(target)
        ? `to share the data, make this key a module that re-exports it (a source beside it with ${reExport}) and import that module without { type: 'json' }`
        : `to share the file, declare it under "assets" in the module.json of a module of ${packageName}, which gives it an address`;
  return `${what}: Node resolves "${packageName}/${subpath}" to it, but this service publishes only code and stylesheets as modules, so the name is no public module and an import of it fails; ${instead}`;
}
