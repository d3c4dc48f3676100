// A CommonJS file of an installed package that `require()`s another package (react-dom requires
// react, debug requires ms): every build of the service keeps bare names external, and esbuild
// writes such a call, in an ES module, as a helper that throws `Dynamic require of "ms" is not
// supported` when it runs. The local CDN makes it an `import` of that package at the top of the
// bundle instead (its bare name, mapped by the page's import map like any bare import), the
// `require` returning what Node's would: a CommonJS module's `module.exports` (its CDN module
// marks it with the export named `module.exports`, the name Node gives it), else the namespace
// (README "The local CDN"). Only a string literal naming a package the requiring package
// declares (`dependencies`, or a `peerDependencies` entry not marked optional), written outside
// every `try` block: a `require` in a `try` is an optional dependency, which the page must not
// fail to link for; it stays the helper that throws, which its `try` catches.
import type * as esbuild from 'esbuild';
import { parse } from 'acorn';
import { readRegularFile } from '../../regular-files.js';
import { childNodes, type SyntaxNode } from '../free-globals.js';
import { parseBareSpecifier } from '../../workspace/specifiers.js';

export const REQUIRED_PACKAGES = 'core-required-packages';
/** The namespace of the CommonJS module a `require` of a package (its bare specifier as `path`) resolves to, which imports that package's CDN module. */
export const REQUIRED = 'cdn-required';
// The ES module importing it.
const IMPORTED = 'cdn-imported';
/** The export naming a CommonJS module's `module.exports` in its CDN module (Node's name for it). */
export const MODULE_EXPORTS = 'module.exports';

/** The packages `manifest` (a parsed package.json) declares for its code to load. */
export function declaredPackages(manifest: unknown): Set<string> {
  const fields = (manifest ?? {}) as Record<string, unknown>;
  const names = new Set<string>();
  const record = (value: unknown): Record<string, unknown> => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
  for (const name of Object.keys(record(fields.dependencies))) names.add(name);
  const optional = record(fields.peerDependenciesMeta);
  for (const name of Object.keys(record(fields.peerDependencies))) if (record(optional[name]).optional !== true) names.add(name);
  return names;
}

/**
 * The plugin turning a `require` of a package in `declared` into an import of it; it also loads
 * each module another plugin resolves into the `REQUIRED` namespace (the entry of another export of
 * the package: plugins/other-exports.ts).
 */
export function requiredPackagesPlugin(declared: ReadonlySet<string>): esbuild.Plugin {
  return {
    name: REQUIRED_PACKAGES,
    setup(build) {
      // Per build: a kept context's next build reads each file again.
      const outsideTry = new Map<string, Set<string>>();
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.namespace === IMPORTED) return { path: args.path, external: true };
        if (args.namespace === REQUIRED) return { path: args.path, namespace: IMPORTED };
        if (args.kind !== 'require-call' || args.namespace !== 'file') return undefined;
        const bare = parseBareSpecifier(args.path);
        if (!bare || !declared.has(bare.packageName)) return undefined;
        if (!outsideTry.has(args.importer)) outsideTry.set(args.importer, requiredOutsideTry(args.importer));
        return outsideTry.get(args.importer)!.has(args.path) ? { path: args.path, namespace: REQUIRED } : undefined;
      });
      build.onLoad({ filter: /.*/, namespace: REQUIRED }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.path)}).value;\n`,
        loader: 'js',
      }));
      build.onLoad({ filter: /.*/, namespace: IMPORTED }, (args) => {
        const exportsName = JSON.stringify(MODULE_EXPORTS);
        return {
          contents: `import * as namespace from ${JSON.stringify(args.path)};\nexport const value = ${exportsName} in namespace ? namespace[${exportsName}] : namespace;\n`,
          loader: 'js',
        };
      });
    },
  };
}

/**
 * The string literals `file` passes to `require` outside every `try` block (a `catch` or
 * `finally` block is outside). A file acorn cannot parse gives none: its requires stay as esbuild
 * wrote them.
 */
function requiredOutsideTry(file: string): Set<string> {
  const names = new Set<string>();
  let tree: SyntaxNode;
  try {
    const source = readRegularFile(file).bytes.toString('utf8');
    tree = parse(source, { ecmaVersion: 'latest', sourceType: 'script', allowHashBang: true, allowReturnOutsideFunction: true }) as unknown as SyntaxNode;
  } catch {
    return names;
  }
  const walk = (node: SyntaxNode, inTry: boolean): void => {
    if (!inTry && isRequireOfLiteral(node)) names.add((node.arguments as { value: string }[])[0]!.value);
    for (const child of childNodes(node)) walk(child, inTry || (node.type === 'TryStatement' && child === node.block));
  };
  walk(tree, false);
  return names;
}

function isRequireOfLiteral(node: SyntaxNode): boolean {
  if (node.type !== 'CallExpression') return false;
  const callee = node.callee as SyntaxNode;
  const args = node.arguments as { type: string; value?: unknown }[];
  return callee.type === 'Identifier' && callee.name === 'require' && args.length === 1 && args[0]!.type === 'Literal' && typeof args[0]!.value === 'string';
}
