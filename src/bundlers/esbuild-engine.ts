// The esbuild engine behind both built-in bundlers. One `build()` call compiles many modules
// (one entry point each, no code splitting), so each still gets its own code and stylesheet
// outputs; one esbuild context per module variant makes rebuilds incremental.
import fs from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import type { ImportRecord } from '../workspace/checks.js';
import { diagnostic, type Diagnostic } from '../workspace/diagnostics.js';
import { isBare } from '../workspace/specifiers.js';
import type { Variant } from '../workspace/variant.js';
import { assetsPlugin } from './plugins/assets.js';
import { bareImportsPlugin } from './plugins/bare-imports.js';
import { BuildCancelled, type BundleResult, type BundleTarget, type Bundler, type BundlerOptions } from './types.js';

export interface EngineOptions extends BundlerOptions {
  /** Extensions of sources this bundler refuses, with the reason. */
  refuse?: { filter: RegExp; reason: string };
}

// Contexts kept for incremental rebuilds; the least recently used beyond this are disposed.
const CONTEXT_LIMIT = 64;
const OUT = '__core_';
// Import kinds of JavaScript; CSS `@import` and `url()` are not dependencies between modules.
const JS_KINDS = new Set<esbuild.ImportKind>(['import-statement', 'dynamic-import', 'require-call', 'require-resolve']);

export function createEsbuildEngine(options: EngineOptions): Bundler {
  const root = path.resolve(options.root);
  const contexts = new Map<string, { context: esbuild.BuildContext; signature: string; idle?: Promise<void> }>();

  function buildOptions(targets: BundleTarget[], variant: Variant): esbuild.BuildOptions {
    const plugins: esbuild.Plugin[] = [bareImportsPlugin(), assetsPlugin(root, targets)];
    if (options.refuse) plugins.push(refusePlugin(options.refuse));
    return {
      absWorkingDir: root,
      entryPoints: targets.map((target, index) => ({ in: path.join(root, target.entry), out: `${OUT}${index}` })),
      outdir: root,
      bundle: true,
      splitting: false,
      write: false,
      metafile: true,
      format: 'esm',
      platform: variant.target === 'node' ? 'node' : 'browser',
      minify: variant.min,
      sourcemap: variant.sourcemap === 'inline' ? 'inline' : false,
      define: { 'process.env.NODE_ENV': JSON.stringify(variant.env) },
      charset: 'utf8',
      logLevel: 'silent',
      plugins,
    };
  }

  async function bundle(targets: BundleTarget[], variant: Variant, signal?: AbortSignal): Promise<BundleResult[]> {
    if (targets.length === 0) return [];
    throwIfAborted(signal);
    try {
      const result = await esbuild.build(buildOptions(targets, variant));
      throwIfAborted(signal);
      return targets.map((target, index) => collect(root, target, index, result));
    } catch (error) {
      if (!isBuildFailure(error)) throw error;
      // A failure names no module: split the batch until each failure has its own module.
      if (targets.length === 1) return [failed(root, targets[0]!, error.errors)];
      const middle = Math.ceil(targets.length / 2);
      const halves = await Promise.all([bundle(targets.slice(0, middle), variant, signal), bundle(targets.slice(middle), variant, signal)]);
      return halves.flat();
    }
  }

  async function rebuild(target: BundleTarget, variant: Variant, signal?: AbortSignal): Promise<BundleResult> {
    throwIfAborted(signal);
    const key = `${target.specifier}\0${JSON.stringify(variant)}`;
    const signature = JSON.stringify([target.entry, target.dir, target.subpath, target.assets]);
    let entry = contexts.get(key);
    if (entry && entry.signature !== signature) {
      contexts.delete(key);
      await entry.context.dispose();
      entry = undefined;
    }
    if (!entry) {
      entry = { context: await esbuild.context(buildOptions([target], variant)), signature };
      await evict();
    }
    contexts.delete(key);
    contexts.set(key, entry); // most recently used last
    const context = entry.context;
    // One rebuild per context at a time, the next one starting once a cancelled one has wound
    // down: a rebuild started during a cancel is cancelled with it, and esbuild's "The build
    // was canceled" would be recorded as the module's diagnostic until its next change.
    const previous = entry.idle;
    let release!: () => void;
    entry.idle = new Promise<void>((resolve) => (release = resolve));
    let cancelled: Promise<void> = Promise.resolve();
    const cancel = () => void (cancelled = context.cancel().catch(() => {}));
    try {
      await previous;
      throwIfAborted(signal);
      signal?.addEventListener('abort', cancel, { once: true });
      const result = await context.rebuild();
      throwIfAborted(signal);
      return collect(root, target, 0, result);
    } catch (error) {
      throwIfAborted(signal);
      if (isBuildFailure(error)) return failed(root, target, error.errors);
      throw error;
    } finally {
      signal?.removeEventListener('abort', cancel);
      void cancelled.then(release);
    }
  }

  async function evict() {
    while (contexts.size > CONTEXT_LIMIT) {
      const [oldest, entry] = contexts.entries().next().value!;
      contexts.delete(oldest);
      await entry.context.dispose();
    }
  }

  return {
    bundle,
    rebuild,
    async forget(specifier) {
      for (const [key, entry] of [...contexts]) {
        if (!key.startsWith(`${specifier}\0`)) continue;
        contexts.delete(key);
        await entry.context.dispose();
      }
    },
    async dispose() {
      const all = [...contexts.values()];
      contexts.clear();
      await Promise.all(all.map((entry) => entry.context.dispose()));
    },
  };
}

function throwIfAborted(signal?: AbortSignal) {
  if (signal?.aborted) throw new BuildCancelled();
}

const isBuildFailure = (error: unknown): error is esbuild.BuildFailure =>
  error instanceof Error && Array.isArray((error as Partial<esbuild.BuildFailure>).errors) && (error as esbuild.BuildFailure).errors.length > 0;

// The outputs, inputs and bare imports of entry `index` of a finished build.
function collect(root: string, target: BundleTarget, index: number, result: esbuild.BuildResult): BundleResult {
  const files = result.outputFiles ?? [];
  const metafile = result.metafile!;
  const codePath = path.join(root, `${OUT}${index}.js`);
  const stylesPath = path.join(root, `${OUT}${index}.css`);
  const code = files.find((file) => file.path === codePath)?.contents ?? null;
  const styles = files.find((file) => file.path === stylesPath)?.contents ?? null;
  const inputs = new Set<string>();
  const codeInputs = Object.keys(metafile.outputs[`${OUT}${index}.js`]?.inputs ?? {});
  for (const input of [...codeInputs, ...Object.keys(metafile.outputs[`${OUT}${index}.css`]?.inputs ?? {})]) {
    const file = inputPath(input);
    if (file !== null) inputs.add(file);
  }
  const imports: ImportRecord[] = [];
  for (const input of codeInputs) {
    for (const record of metafile.inputs[input]?.imports ?? []) {
      const specifier = record.original ?? record.path;
      if (!record.external || !JS_KINDS.has(record.kind) || !isBare(specifier)) continue;
      const file = inputPath(input);
      if (file === null) continue;
      imports.push({ specifier, file, ...locate(root, file, specifier) });
    }
  }
  return { specifier: target.specifier, code, styles: styles && styles.length > 0 ? styles : null, inputs: [...inputs].sort(), imports, errors: [] };
}

// A failed build: its diagnostics, and the files whose change could fix it.
function failed(root: string, target: BundleTarget, messages: esbuild.Message[]): BundleResult {
  const inputs = new Set<string>([target.entry, `${target.dir}/`]);
  const errors: Diagnostic[] = [];
  for (const message of messages) {
    const file = message.location ? inputPath(message.location.file) : null;
    const text = message.text.split(root + path.sep).join('');
    errors.push(
      diagnostic('BUNDLE_ERROR', text, file === null ? { file: target.entry } : { file, line: message.location!.line, column: message.location!.column + 1 }),
    );
    if (file === null) continue;
    inputs.add(file);
    // A missing file: its creation changes the listing of the directory it would be in.
    const missing = /^Could not resolve "(\.{1,2}\/[^"]+)"/.exec(message.text);
    if (missing) inputs.add(`${path.posix.dirname(path.posix.join(path.posix.dirname(file), missing[1]!))}/`);
  }
  return { specifier: target.specifier, code: null, styles: null, inputs: [...inputs].sort(), imports: [], errors };
}

// Metafile paths are relative to the working directory; other namespaces carry a prefix.
function inputPath(input: string): string | null {
  const namespaced = /^([a-z-]+):(.*)$/.exec(input);
  if (namespaced) return namespaced[1] === 'core-asset' ? namespaced[2]! : null;
  return input.replace(/\\/g, '/');
}

// Where an import is written, for diagnostics that point at it.
function locate(root: string, file: string, specifier: string): { line?: number; column?: number } {
  let text: string;
  try {
    text = fs.readFileSync(path.join(root, file), 'utf8');
  } catch {
    return {};
  }
  for (const quote of ["'", '"', '`']) {
    const at = text.indexOf(`${quote}${specifier}${quote}`);
    if (at === -1) continue;
    const lines = text.slice(0, at).split('\n');
    return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
  }
  return {};
}

function refusePlugin(refuse: { filter: RegExp; reason: string }): esbuild.Plugin {
  return {
    name: 'core-refuse-sources',
    setup(build) {
      build.onLoad({ filter: refuse.filter }, (args) => ({ errors: [{ text: `${path.basename(args.path)}: ${refuse.reason}` }] }));
    },
  };
}
