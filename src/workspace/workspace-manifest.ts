// `core.json`: the packages of the workspace and the module the preview opens by default.
import { manifestInvalid, type Diagnostic } from './diagnostics.js';
import { describeType, isObject, parseJson } from './json.js';
import { isInside, normalizeRelative } from './paths.js';

export interface WorkspaceManifest {
  packages: string[];
  preview: string | null;
}

export interface ManifestResult<T> {
  /** null when the manifest cannot be used at all. */
  value: T | null;
  diagnostics: Diagnostic[];
}

export function parseWorkspaceManifest(text: string, file = 'core.json'): ManifestResult<WorkspaceManifest> {
  const parsed = parseJson(text, file);
  if (!parsed.ok) return { value: null, diagnostics: [parsed.diagnostic] };
  const json = parsed.value;
  if (!isObject(json)) return { value: null, diagnostics: [manifestInvalid(file, `${file} must hold an object; it holds ${describeType(json)}`)] };
  const diagnostics: Diagnostic[] = [];
  // `$schema` points editors at schemas/core.schema.json; the service only checks its type.
  if (json.$schema !== undefined && typeof json.$schema !== 'string') {
    diagnostics.push(manifestInvalid(file, `${file}: "$schema" must be the address of a JSON Schema; it is ${describeType(json.$schema)}`));
  }
  if (!Array.isArray(json.packages)) {
    return { value: null, diagnostics: [manifestInvalid(file, `${file}: "packages" must be an array of package directories; it is ${describeType(json.packages)}`)] };
  }
  const packages: string[] = [];
  json.packages.forEach((entry, index) => {
    if (typeof entry !== 'string' || entry.trim() === '') {
      diagnostics.push(manifestInvalid(file, `${file}: packages[${index}] must be a directory name; it is ${describeType(entry)}`));
      return;
    }
    const dir = normalizeRelative(entry);
    if (dir === null || !isInside(dir)) {
      diagnostics.push(manifestInvalid(file, `${file}: packages[${index}] "${entry}" must be a directory inside the workspace`));
      return;
    }
    if (packages.includes(dir)) {
      diagnostics.push(manifestInvalid(file, `${file}: packages[${index}] "${entry}" is listed twice`));
      return;
    }
    packages.push(dir);
  });
  let preview: string | null = null;
  if (json.preview !== undefined) {
    if (typeof json.preview === 'string' && json.preview !== '') preview = json.preview;
    else diagnostics.push(manifestInvalid(file, `${file}: "preview" must be a module specifier such as "@acme/app/main"; it is ${describeType(json.preview)}`));
  }
  return { value: { packages, preview }, diagnostics };
}
