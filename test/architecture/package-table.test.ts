// ARCHITECTURE.md "Layers": whose package a bare import names is decided in one place, the
// package table of the workspace index. Outside src/workspace/ no file calls `unreadPackageOf*`
// or reads the model's `unreadPackages`, so no consumer can weigh the model's packages without
// the unread ones and send a package whose package.json is half saved to a CDN (README
// "Workspaces"). Read from the compiler's program, its checker telling the model's member from
// any other object's member of that name.
import { expect } from 'chai';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isBindingElement, isElementAccessExpression, isIdentifier, isObjectBindingPattern, isPropertyAccessExpression, isStringLiteral, type Node } from 'typescript/unstable/ast';
import type { Checker } from 'typescript/unstable/sync';
import { tempWorkspace } from '../helpers/workspace.js';
import { toPosix, withProgram } from './program.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WORKSPACE_LAYER = 'src/workspace/';
const UNREAD_MEMBER = 'unreadPackages';
const UNREAD_LOOKUP = /^unreadPackageOf/;

/** A use of the unread packages: `file:line what`, with the file relative to the program's directory. */
interface UnreadUse {
  readonly file: string;
  readonly text: string;
}

const nameText = (node: Node | undefined): string | undefined => (node && (isIdentifier(node) || isStringLiteral(node)) ? node.text : undefined);

/** Whether the member a node names is `unreadPackages` of a type declared in src/workspace/ (the model), not of any other object. */
function readsModelMember(checker: Checker, node: Node, workspaceDir: string): boolean {
  let symbol;
  if (isPropertyAccessExpression(node) && node.name.text === UNREAD_MEMBER) symbol = checker.getSymbolAtLocation(node.name);
  else if (isElementAccessExpression(node) && nameText(node.argumentExpression) === UNREAD_MEMBER) symbol = checker.getSymbolAtLocation(node.argumentExpression);
  else if (isBindingElement(node) && isObjectBindingPattern(node.parent) && nameText(node.propertyName ?? node.name) === UNREAD_MEMBER) {
    const type = checker.getTypeAtLocation(node.parent);
    const object = type && (checker.getNonNullableType(type) ?? type);
    symbol = object && checker.getPropertyOfType(object, UNREAD_MEMBER);
  } else return false;
  return symbol?.declarations.some((declaration) => toPosix(declaration.path).startsWith(workspaceDir)) ?? false;
}

/** Every call or import of `unreadPackageOf*` and every read of the model's `unreadPackages` in the files of `dir/src/`. */
function unreadUses(dir: string): UnreadUse[] {
  return withProgram(dir, ({ files, sourceFile, checker }) => {
    const workspaceDir = `${toPosix(dir)}/${WORKSPACE_LAYER}`;
    const uses: UnreadUse[] = [];
    for (const path of [...files].filter((candidate) => candidate.startsWith(`${toPosix(dir)}/src/`)).sort()) {
      const source = sourceFile(path)!;
      const file = toPosix(relative(dir, path));
      const found = (node: Node, what: string) => uses.push({ file, text: `${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} ${what}` });
      const visit = (node: Node): void => {
        if (isIdentifier(node) && UNREAD_LOOKUP.test(node.text)) found(node, `names ${node.text}`);
        else if (readsModelMember(checker, node, workspaceDir)) found(node, `reads the model's ${UNREAD_MEMBER}`);
        node.forEachChild(visit);
      };
      visit(source);
    }
    return uses;
  });
}

const outsideWorkspaceLayer = (uses: readonly UnreadUse[]) => uses.filter((use) => !use.file.startsWith(WORKSPACE_LAYER)).map((use) => use.text);

describe('the package table of ARCHITECTURE.md "Layers"', () => {
  it('is the only way outside src/workspace/ to ask whether a package is an unread one', () => {
    const uses = unreadUses(root);
    // The checker resolves the model's member and the lookups where they are used: a check that
    // finds none would pass anything.
    expect(uses.filter((use) => use.text.includes(`reads the model's ${UNREAD_MEMBER}`)).length).to.be.greaterThan(1);
    expect(uses.filter((use) => use.text.includes('names unreadPackageOf')).length).to.be.greaterThan(1);
    expect(outsideWorkspaceLayer(uses)).to.deep.equal([]);
  });
});

describe('the package table check', () => {
  it("refuses a lookup or a read of the model's member outside src/workspace/, and allows another object's member of that name", function () {
    const dir = tempWorkspace({
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, module: 'NodeNext', verbatimModuleSyntax: true, noEmit: true, types: [] }, include: ['src'] }),
      'src/workspace/model.ts': 'export interface WorkspaceModel { unreadPackages?: string[] }\n',
      'src/workspace/unread.ts': [
        "import type { WorkspaceModel } from './model.js';",
        'export const unreadPackageOf = (workspace: WorkspaceModel, name: string) => workspace.unreadPackages?.includes(name) ?? false;',
        '',
      ].join('\n'),
      'src/http/answer.ts': [
        "import type { WorkspaceModel } from '../workspace/model.js';",
        "import { unreadPackageOf as isUnread } from '../workspace/unread.js';",
        'export const a = (workspace: WorkspaceModel) => isUnread(workspace, "x");',
        'export const b = (state: { workspace?: WorkspaceModel }) => state.workspace?.unreadPackages;',
        'export const c = (workspace: WorkspaceModel) => workspace["unreadPackages"];',
        'export function d(workspace: WorkspaceModel) {',
        '  const { unreadPackages } = workspace;',
        '  return unreadPackages;',
        '}',
        '',
      ].join('\n'),
      // A guard of what was read from disk reads a member of that name of no model.
      'src/io/guard.ts': 'export const e = (value: Record<string, unknown>) => Array.isArray(value.unreadPackages);\n',
    });
    expect(outsideWorkspaceLayer(unreadUses(dir))).to.deep.equal([
      'src/http/answer.ts:2 names unreadPackageOf',
      "src/http/answer.ts:4 reads the model's unreadPackages",
      "src/http/answer.ts:5 reads the model's unreadPackages",
      "src/http/answer.ts:7 reads the model's unreadPackages",
    ]);
  });
});
