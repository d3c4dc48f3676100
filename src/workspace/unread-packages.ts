// The packages core.json lists whose package.json could not be taken into the model (not JSON,
// no valid name or version, or none there: `known-identity.ts`): README "Workspaces". Their names are the workspace's
// while the manifest is being fixed, so an import of one is never sent to a CDN, where anyone
// may have published that name. Pure.
import { visit } from 'jsonc-parser';
import type { UnreadPackage, WorkspaceModel } from './model.js';
import { indexWorkspace, type PackageOwner } from './workspace-index.js';

/**
 * The top-level `name` and `version` strings a package.json writes before its first syntax
 * error: what the file says now, even half saved. A member nested deeper (`author.name`) is not
 * the package's; one written after the error is not read, since nothing after it is certain.
 */
export function readableIdentity(text: string): { name: string | null; version: string | null } {
  const found: { name: string | null; version: string | null } = { name: null, version: null };
  let depth = 0;
  let member: string | null = null;
  let broken = false;
  const enter = () => void (broken || (depth += 1));
  const leave = () => void (broken || (depth -= 1));
  try {
    visit(
      text.charCodeAt(0) === 0xfeff ? text.slice(1) : text,
      {
        onObjectBegin: enter,
        onObjectEnd: leave,
        onArrayBegin: enter,
        onArrayEnd: leave,
        onObjectProperty: (property) => {
          if (!broken && depth === 1) member = property;
        },
        onLiteralValue: (value) => {
          if (broken || depth !== 1 || (member !== 'name' && member !== 'version')) return;
          found[member] = typeof value === 'string' && value !== '' ? value : null;
        },
        onError: () => {
          broken = true;
        },
      },
      { disallowComments: true, allowTrailingComma: false },
    );
  } catch (error) {
    // The visitor recurses: a nesting deeper than the stack ends the read, keeping what was read.
    if (!(error instanceof RangeError)) throw error;
  }
  return found;
}

// The table of the workspace index decides whose a name is (README "Workspaces"); these two
// give its answer reduced to the unread package, for the workspace layer only: every other layer
// asks the table (test/architecture/package-table.test.ts).

/** The unread package a bare import of `packageName` may be of (`PackageTable.ofName`); null for a package of the model, or one outside. */
export function unreadPackageOf(workspace: WorkspaceModel, packageName: string): UnreadPackage | null {
  return unreadOnly(indexWorkspace(workspace).packageTable.ofName(packageName));
}

/** The unread package a bare import `specifier` of a module of `ownerPackage` may be of (`PackageTable.ofImport`). */
export function unreadPackageOfImport(workspace: WorkspaceModel, ownerPackage: string, specifier: string): UnreadPackage | null {
  return unreadOnly(indexWorkspace(workspace).packageTable.ofImport(ownerPackage, specifier));
}

const unreadOnly = (owner: PackageOwner | null): UnreadPackage | null => (owner?.kind === 'unread' ? owner.package : null);

/** Why an import of `packageName` is not sent to a CDN: the unread manifest, in words. */
export function unreadPackageReason(pkg: UnreadPackage, packageName: string): string {
  if (pkg.absent) {
    return pkg.name === packageName
      ? `${packageName} is the workspace package of ${pkg.dir}, which core.json lists but which has no package.json now (MANIFEST_INVALID): it is served once the package is back, never sent to a CDN`
      : `core.json lists ${pkg.dir}, which has no package.json now and whose name is not known (MANIFEST_INVALID), so ${packageName} may be that workspace package: no import of a package outside the workspace is sent to a CDN until the directory is back or removed from core.json`;
  }
  return pkg.name === packageName
    ? `${packageName} is the workspace package of ${pkg.dir}, whose ${pkg.file} is invalid (MANIFEST_INVALID): it is served once the manifest is fixed, never sent to a CDN`
    : `${pkg.file} is invalid before its "name" can be read (MANIFEST_INVALID), so ${packageName} may be that workspace package: no import of a package outside the workspace is sent to a CDN until the manifest is fixed`;
}

/** The manifest problems of an unread package, as the top level of the model tells them (of an absent one: those naming its directory). */
export const unreadPackageDiagnostics = (workspace: WorkspaceModel, pkg: UnreadPackage) =>
  workspace.diagnostics.filter((problem) => (pkg.absent ? problem.message.includes(`lists the package directory "${pkg.dir}"`) : problem.file === pkg.file));
