// The one table of codes (README "Error codes"): every HTTP error code and every diagnostic
// kind, with when it happens and what to do about it. Error bodies take their status and
// remedy here, the terminal its remedy lines, and the README's tables are rendered from it
// (`renderCodeTables`; a test compares them). It imports nothing, so every layer may use it.

export interface ErrorCodeEntry {
  status: number;
  /** When the code is answered, as the README's table says it. */
  when: string;
  /** What to do about it: sent in every error body as `remedy`. */
  remedy: string;
}

export const ERROR_CODES = {
  OUTPUT_NOT_AVAILABLE: {
    status: 404,
    when: 'anything not declared: unknown package, version, subpath, output kind or asset; a module without stylesheet asked for its styles; a path that escapes a module',
    remedy: 'ask for an address /state lists, or declare the module in `exports` or module.json, or the file under `assets`',
  },
  CONDITIONAL_NOT_FOUND: {
    status: 404,
    when: '`target` names a platform the module does not declare (`browser` needs `web`, `node` needs `node`)',
    remedy: 'add the platform to `platforms` in module.json if the module really runs there',
  },
  OPTION_UNSUPPORTED: {
    status: 400,
    when: 'a query parameter or value outside the table of README "Addresses"',
    remedy: 'use the query values README "Addresses" lists (production output is minified, without source map: `min=true&sourcemap=none`)',
  },
  BUILD_FAILED: {
    status: 422,
    when: "the module's build has diagnostics; they are listed",
    remedy: 'fix what the diagnostics name, at their file, line and column',
  },
  CDN_FILE_OUTSIDE_PACKAGE: {
    status: 403,
    when: "a local CDN address whose entry, or a file the entry imports, has a real path outside the installed package's own directory (`../` out of it, a link); nothing of it is read",
    remedy: 'the local CDN serves a package from its own files only: import another package by its name, or use a real CDN',
  },
  CDN_PACKAGE_CHANGING: {
    status: 503,
    when: "a local CDN address of an installed package whose files changed during each of 3 builds in a row (an install or a patch still running); no bytes a build may have read half-written are answered",
    remedy: 'ask again once the install or the patch has finished',
  },
  SERVICE_CLOSING: {
    status: 503,
    when: 'a request whose answer waited on the state, a build or a join when the service closed (`close()`, SIGINT, SIGTERM); an expected end, nothing is logged',
    remedy: 'ask again once the service runs again',
  },
  PREVIEW_NOT_LOADED: {
    status: 404,
    when: '`/preview/` (or an address under it) while the development extension is not loaded',
    remedy: 'start the service with `core run --dev` (or CORE_SERVICE_EXTENSIONS=@core-js/packages/development), which serves the preview and pushes stylesheets',
  },
  PREVIEW_CDN_UNSET: {
    status: 503,
    when: 'the preview, while `CORE_CDN_ORIGIN` is unset',
    remedy: 'start the service again with CORE_CDN_ORIGIN set: `local` (the service itself, from node_modules) or a CDN origin such as https://esm.sh',
  },
  HOST_NOT_ALLOWED: {
    status: 403,
    when: 'a `Host` other than localhost, 127.0.0.1, [::1], the `--host` or an `--allowed-host`',
    remedy: 'use localhost, or start the service with `--allowed-host` naming this host',
  },
  CROSS_SITE_REFUSED: {
    status: 403,
    when: 'development output fetched cross-site as a no-cors script, or a WebSocket opened by a page of another origin',
    remedy: 'load production output (`env=production`) from other sites',
  },
  REQUEST_INVALID: {
    status: 400,
    when: 'a request-target with `#`, a NUL byte, broken percent-encoding, or over 8 KiB',
    remedy: 'send a request-target without `#`, NUL bytes or broken percent-encoding, of at most 8 KiB',
  },
  REQUEST_TIMEOUT: {
    status: 408,
    when: 'a request line and headers not received within 10 s, or a whole request within 60 s',
    remedy: 'send the request line and headers within 10 s, and the whole request within 60 s',
  },
  RANGE_NOT_SATISFIABLE: {
    status: 416,
    when: 'a `Range` of bytes none of whose ranges starts inside the answer (`bytes=500-` of a 100-byte asset, `bytes=-0`); its `Content-Range: bytes */SIZE` tells the size (README "Addresses")',
    remedy: 'ask for a range that starts before the size `Content-Range` gives, or for the whole answer without `Range`',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    when: 'anything but GET and HEAD',
    remedy: 'use GET or HEAD',
  },
  INTERNAL_ERROR: {
    status: 500,
    when: 'a defect of the service (never expected; please report it)',
    remedy: 'report it, with what `core run` printed',
  },
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface DiagnosticKindEntry {
  /** An error makes its module (or the workspace) invalid; a warning never does (README "Warnings"). */
  severity: 'error' | 'warning';
  /** Where it is listed: a module's diagnostics, the top level of `/state`, or the preview page only. */
  scope: 'module' | 'top-level' | 'page';
  when: string;
  /** What to do about it: printed under it by `core run`, shown by the dashboard and the preview. */
  remedy: string;
}

export const DIAGNOSTIC_KINDS = {
  BUNDLE_ERROR: {
    severity: 'error',
    scope: 'module',
    when: 'esbuild cannot build the module: a syntax error, an unresolved relative import, a broken tsconfig, a file of its graph that is not a regular file (a FIFO, a socket, a device: README "Files that are not files"), an asset declared by another module, a name imported from another public module whose code does not export it, a name no browser defines read by a browser build (a Node global such as `process` read when the module is imported, JSX compiled to its factory, `React.createElement` or the `jsxFactory` of a tsconfig, with nothing binding it), or what surely throws in strict code where the import runs (a name written that nothing binds and Chromium\'s window lacks, `arguments` or a function declared only in a block read, a member of `this` at the top level, which is undefined), a member of a value surely nullish on a page (`import.meta.hot`, `document.currentScript`), or a name read that nothing binds and no page the service serves defines (such as `__DEV__`, a build-time constant of another bundler), or code reading a decorated class\'s `design:*` metadata under a tsconfig asking for `emitDecoratorMetadata`, which esbuild never writes (README "Bundling real code")',
    remedy: 'fix the source at the file, line and column given',
  },
  ENGINE_UNAVAILABLE: {
    severity: 'error',
    scope: 'module',
    when: "esbuild's process died during the module's build and again in the new process started for it, or died more than 3 times within 60 s, after which no build runs until a file is saved (README \"When esbuild's process dies\")",
    remedy: 'save a file to build again; if it keeps dying, report it to esbuild with what `core run` printed (its panic)',
  },
  STYLESHEET_IMPORTED_AS_VALUE: {
    severity: 'error',
    scope: 'module',
    when: 'a stylesheet imported for a value: a default or namespace import of a `.css` file (`./x.css?inline` too), which would be `{}`, or a CSS module script (`with { type: \'css\' }`) of a sheet not declared under `assets`, or by bare specifier',
    remedy: "write `import './x.css'` for the page to link its rules, or, for a sheet object (a shadow root), declare the sheet under `assets` and import it as a CSS module script: `import sheet from './x.css' with { type: 'css' }`",
  },
  DEPENDENCY_NOT_DECLARED: {
    severity: 'error',
    scope: 'module',
    when: 'a package is imported by bare specifier and is absent from `dependencies`, `peerDependencies` and `optionalDependencies` of the importing package',
    remedy: 'declare it in `dependencies` of the importing package',
  },
  DEPENDENCY_INCOMPATIBLE: {
    severity: 'error',
    scope: 'module',
    when: "the version of the workspace package does not satisfy the importing package's range",
    remedy: 'correct the range or the version',
  },
  PREVIEW_BUILTIN: {
    severity: 'error',
    scope: 'module',
    when: 'a browser module imports a server-runtime built-in module',
    remedy: 'remove the import, or declare the module for `node` only',
  },
  PREVIEW_VERSION_UNRESOLVED: {
    severity: 'error',
    scope: 'module',
    when: 'a package outside the workspace has no exact installed or declared version',
    remedy: 'install the package, or declare an exact version',
  },
  MANIFEST_INVALID: {
    severity: 'error',
    scope: 'module',
    when: 'core.json, a package.json or a module.json is not what README "Workspaces" allows; also at the top level',
    remedy: 'correct the manifest at the place given',
  },
  EFFECT_FAILED: {
    severity: 'error',
    scope: 'top-level',
    when: 'an effect of the service failed 5 times in a row (see "Effects and their supervisor")',
    remedy: 'a defect of the service: report it, with what `core run` printed',
  },
  BUNDLE_WARNING: {
    severity: 'warning',
    scope: 'module',
    when: "esbuild's warning about the module's sources, or a Node global (such as `process`), a name no page the service serves defines (such as `__DEV__`) or a member of `import.meta.hot` read inside a function of a browser build, which throws only when that is called, or a decorated module under a tsconfig asking for `emitDecoratorMetadata`, which esbuild does not implement (README \"Bundling real code\")",
    remedy: 'fix the source at the file, line and column given',
  },
  CSS_SYNTAX: {
    severity: 'warning',
    scope: 'module',
    when: "esbuild's CSS parser found a syntax problem in a stylesheet (a `{` never closed, a stray character): a browser drops the rules around it, so an open preview keeps its last good sheet",
    remedy: 'fix the stylesheet at the file, line and column given (the preview shows the lines in its overlay)',
  },
  ASSET_IMPORT_UNSERVED: {
    severity: 'warning',
    scope: 'module',
    when: "a declared `.js` or `.mjs` asset the module's code names by `new URL` (a worker), or a declared asset it loads in turn, loads what the browser cannot: a static import or an `import()` of a literal naming a file of the module's assets that is not declared (its address answers 404) or a bare specifier (a worker has no import map), or an `importScripts` of a literal naming an undeclared file there (any name without a scheme is an address beside the asset): served as written, it fails to load in the browser (README \"Bundling real code\")",
    remedy: 'declare the file it loads under `assets` too, and import it by a relative address: an asset is served as written, never bundled, and a worker has no import map for a bare specifier',
  },
  WORKER_TYPE_MISMATCH: {
    severity: 'warning',
    scope: 'module',
    when: "a declared `.js` or `.mjs` asset is run as a classic script (started by `new Worker`, `new SharedWorker` or `navigator.serviceWorker.register` without `{ type: 'module' }`, or loaded by `importScripts`) and writes `import`, `export` or `import.meta` (a SyntaxError: it never runs), or is run as a module (`{ type: 'module' }`, or imported) and calls the global `importScripts` where it surely runs when the worker starts (at the top level or in a function called there, in no `try` and no branch: a TypeError there) (README \"Bundling real code\")",
    remedy: "start the worker with `{ type: 'module' }` to use `import`, or without it to use `importScripts`",
  },
  WORKER_ADDRESS_FROM_PAGE: {
    severity: 'warning',
    scope: 'module',
    when: "the code of a module browsers run starts a worker of the browser's (the global `Worker` or `SharedWorker`, as `window.Worker` too or a const holding it, not a name the code binds) from a plain relative string (`new Worker('./w.js')`, `new SharedWorker(...)`), which the browser resolves against the page's address, not the module's: on the service's preview pages nothing is served there (README \"Bundling real code\")",
    remedy: "declare the file under `assets` in the module.json beside the module's entry and write `new Worker(new URL('./w.js', import.meta.url))`",
  },
  MODULE_BOUNDARY_CROSSED: {
    severity: 'warning',
    scope: 'module',
    when: "a relative import (by the file's name, its folder's, a symbolic link to either, or a folder whose package.json `main` or `module` names it) or an alias (tsconfig `paths` or `baseUrl`, package.json `imports`) reaches another public module's entry, with or without a query; it is kept as that module's specifier",
    remedy: "import the other module by its public specifier",
  },
  HELPER_SHARED: {
    severity: 'warning',
    scope: 'module',
    when: 'a file that is no public module is still bundled into several modules, so each page holds a copy: they are in different packages, the file lies outside its package or is CommonJS, or an import reaches it by no relative path (README "Shared files")',
    remedy: 'make the file a public module of its own, import it by a relative path, or keep it inside one module',
  },
  IMPORT_OF_FORMER_NAME: {
    severity: 'warning',
    scope: 'module',
    when: 'a bare import names no workspace package but a name a workspace package had earlier in this run of the service (renamed since): by npm\'s rule it is a package from outside the workspace, a CDN\'s or node_modules\', not the renamed one (README "Workspaces")',
    remedy: 'import the package by the name it has now, and declare that name in `dependencies`',
  },
  NO_PUBLIC_MODULE: {
    severity: 'warning',
    scope: 'top-level',
    when: 'a package in core.json declares no public module',
    remedy: 'add `exports` to its package.json, or a module.json',
  },
  EXPORTS_NO_SOURCE: {
    severity: 'warning',
    scope: 'top-level',
    when: 'an `exports` `*` pattern of code targets matches no file of the package, built or source, that Node would resolve through it',
    remedy: 'add the files, or correct the target (and the `outDir`/`rootDir` of the tsconfig that builds the package)',
  },
  EXPORTS_NAME_UNPUBLISHABLE: {
    severity: 'warning',
    scope: 'top-level',
    when: 'an `exports` `*` pattern matches a file whose subpath is not one this service can publish (a segment with a character other than a letter, digit, `.`, `_` or `-`: `über.ts`, `a b.ts`); the file is no module, the others the pattern matches are. Or an exact `exports` key (but `"./package.json"`) maps to a file that is neither code nor a stylesheet (`"./data": "./data/d.json"`): Node resolves the name, this service publishes no module for it (README "Exports and sources")',
    remedy: 'rename the file to letters, digits, `.`, `_` and `-`, or exclude it with a `null` key; for data, make the key a module that re-exports it (`export { default } from \'./d.json\' with { type: \'json\' }`), imported without `{ type: \'json\' }`',
  },
  PREVIEW_STYLESHEET_UNLINKED: {
    severity: 'warning',
    scope: 'page',
    when: "a script module of a workspace package left out of development imports a stylesheet, and the CDN origin (not `local`) answers its code only: the preview has no address to link its sheet at, so the page shows it unstyled",
    remedy: 'put its package back in development (`core select`), serve the preview with `--cdn local` (which links the sheet at `?styles`), or publish the sheet as a stylesheet module (a `.css` target of `exports`) imported by bare specifier',
  },
  PREVIEW_OUTSIDE_NOT_INSTALLED: {
    severity: 'warning',
    scope: 'page',
    when: 'the preview maps an import to a CDN as a package outside the workspace though no copy of it is installed where its importer would load it, and a workspace package\'s directory is named as that package, or npm\'s link of that name in node_modules leads to it (no install), while the package there has another name (a rename), or the CDN is the local one, which then answers 404 (README "Workspaces")',
    remedy: 'import the workspace package by the name it has now (and declare it), or install the package',
  },
  PREVIEW_CDN_PACKAGE_REFUSED: {
    severity: 'error',
    scope: 'page',
    when: 'an installed package the preview maps to the local CDN cannot be served (its address answers `BUILD_FAILED`, `CDN_FILE_OUTSIDE_PACKAGE` or `OUTPUT_NOT_AVAILABLE`): the page\'s import of it fails (README "The local CDN")',
    remedy: 'fix or replace the package (its message names the file), or preview with another CDN origin (`--cdn <origin>`)',
  },
  PREVIEW_CDN_FILE_UNSERVED: {
    severity: 'warning',
    scope: 'page',
    when: "an installed package the local CDN serves loads one of its own files at run time by a relative URL (`new URL('./worker.js', import.meta.url)`): joined into one module at `/cdn/<package>@<version>`, the URL names a file the local CDN does not serve, so the page's load of it fails (README \"The local CDN\")",
    remedy: 'preview with a CDN origin that serves the package\'s files at their own paths (`--cdn <origin>`), or give the package the file\'s address another way (many take a worker\'s URL as an option)',
  },
  PREVIEW_CDN_FILE_TWICE: {
    severity: 'warning',
    scope: 'page',
    when: 'two bundles of one installed package that the local CDN serves to the page (two of its exports) each hold a file of the package that no export names, so the page runs that file twice: its module state and its classes twice over (README "The local CDN")',
    remedy: 'usually nothing, when the file holds helpers without state; else have the package export the file: an export\'s entry is imported by the other exports, never copied into them (README "The local CDN")',
  },
  PREVIEW_CDN_SCOPE_AMBIGUOUS: {
    severity: 'warning',
    scope: 'page',
    when: 'one version of an installed package is installed twice (two places in node_modules) and the two copies load one bare name at two versions: the local CDN serves that version at one address, so no import map scope can tell the copies apart, and the page gives the second copy\'s importers the first copy and what it loads (README "The local CDN")',
    remedy: 'dedupe the install (`npm dedupe`), so one copy of that version remains, or preview with a CDN origin that resolves each package\'s dependencies itself (`--cdn <origin>`)',
  },
  PREVIEW_CDN_SHEET_IMPORT_IGNORED: {
    severity: 'warning',
    scope: 'page',
    when: 'a sheet of an installed package the local CDN serves to the page writes an `@import` that is not at the top of the sheet, before every rule (after a rule, inside a block): a browser ignores it, so the page misses the rules it names (README "The local CDN")',
    remedy: "tell the package's authors, and import the sheet it names yourself (from your module's code: `import 'pkg/named.css'`), or patch the package (patch-package) to move the `@import` to the top of its sheet",
  },
  PREVIEW_CDN_SHEET_CONDITION_UNAPPLIED: {
    severity: 'warning',
    scope: 'page',
    when: "a sheet of an installed package the local CDN serves to the page imports another package's sheet with a condition (`@import 'tokens/print.css' print;`, `layer(tokens)`, `supports(...)`): the preview links that sheet before the importing one, without the condition, so its rules apply everywhere (README \"The local CDN\")",
    remedy: "tell the package's authors; to preview as published meanwhile, patch the package (patch-package) so that its own sheet holds those rules under the condition (`@media print { ... }`)",
  },
  PREVIEW_BUNDLED_AWAIT: {
    severity: 'warning',
    scope: 'page',
    when: 'a module the bundled preview joins into its one script awaits at its top level: there the modules after it wait until it finishes, where on `/preview/` a module that does not import it runs while it waits (README "The bundled preview")',
    remedy: 'nothing when the page does not depend on that order; else import what must run first from the awaiting module, or compare with `/preview/`',
  },
  LOAD_FAILED: {
    severity: 'error',
    scope: 'page',
    when: "the preview page failed to load a module (the browser's own error, in the overlay only)",
    remedy: 'open the address it names: its answer says why',
  },
  SERVICE_UNREACHABLE: {
    severity: 'error',
    scope: 'page',
    when: "the preview page's connection to `/events` closed and a try to connect again failed: the service stopped or is restarting (in the overlay only)",
    remedy: 'start the service again (`core run`): the page connects again by itself and shows what changed meanwhile',
  },
} as const satisfies Record<string, DiagnosticKindEntry>;

export type DiagnosticKind = keyof typeof DIAGNOSTIC_KINDS;

/** The body of every error answer: the README's shape, with the table's remedy. */
export interface ErrorBody<D = unknown> {
  code: ErrorCode;
  message: string;
  remedy: string;
  diagnostics?: D[];
}

export function errorBody<D>(code: ErrorCode, message: string, diagnostics?: D[]): ErrorBody<D> {
  const body: ErrorBody<D> = { code, message, remedy: ERROR_CODES[code].remedy };
  if (diagnostics) body.diagnostics = diagnostics;
  return body;
}

const SCOPES: Record<DiagnosticKindEntry['scope'], string> = { module: 'a module', 'top-level': 'top level of `/state`', page: 'the preview page' };

/** The README's "Error codes" tables, as Markdown. */
export function renderCodeTables(): string {
  const codes = Object.entries(ERROR_CODES).map(([code, entry]) => `| \`${code}\` | ${entry.status} | ${entry.when} | ${entry.remedy} |`);
  const kinds = Object.entries(DIAGNOSTIC_KINDS).map(([kind, entry]) => `| \`${kind}\` | ${entry.severity} | ${SCOPES[entry.scope]} | ${entry.when} | ${entry.remedy} |`);
  return [
    '| code | status | when | remedy |',
    '|---|---|---|---|',
    ...codes,
    '',
    '| diagnostic kind | severity | listed in | when | remedy |',
    '|---|---|---|---|---|',
    ...kinds,
  ].join('\n');
}
