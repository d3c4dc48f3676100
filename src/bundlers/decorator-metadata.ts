// TypeScript's `emitDecoratorMetadata` (README "Bundling real code"): tsc writes each decorated
// class's `design:paramtypes` (and `design:type`, `design:returntype`), which a constructor-injection
// container reads (tsyringe, inversify, TypeORM's entities, Angular's JIT); esbuild writes none. A
// module decorated under a config asking for it is told, never left to fail on the page in silence.
import { diagnostic, type Diagnostic } from '../workspace/diagnostics.js';
import { lineAndColumn } from '../workspace/json.js';
import type { LoadedTsconfig } from '../workspace/tsconfig.js';
import { dirOf } from '../workspace/paths.js';
import { bufferView } from '../outputs/buffer-view.js';
import type { PlacedReads } from './placed-reads.js';
import { nearestConfig } from './free-globals.js';

const TYPESCRIPT_SOURCE = /\.[cm]?tsx?$/;
// A decorator where a line starts (`@Injectable()`, `@inject(Logger) logger`), once comments are
// blanked: a JSDoc tag (` * @param`) is in a comment, and an `@` inside a line (a string, an
// address) is not where a decorator is written in practice.
const DECORATOR = /^[ \t]*@[A-Za-z_$][\w$.]*(?:\s*\(|\s*$|[ \t]+[A-Za-z_$#[])/m;
const COMMENT = /\/\*[\s\S]*?\*\/|^[ \t]*\/\/.*$/gm;
// The metadata keys tsc writes, as a reader names them: code that reads them surely fails without them.
const METADATA_KEY = /["'`]design:(?:paramtypes|type|returntype)["'`]/;

/** Where a decorator is written, comments blanked at their length so that offsets still hold. */
function decoratorOffset(text: string): number | null {
  const blanked = text.replace(COMMENT, (comment) => comment.replace(/[^\n]/g, ' '));
  const match = DECORATOR.exec(blanked);
  return match ? match.index + match[0].length - match[0].trimStart().length : null;
}

/**
 * The module's TypeScript sources decorated under a config with `emitDecoratorMetadata: true`: an
 * error when its built code names a `design:*` key (it reads the metadata esbuild never writes),
 * else a warning, once per config, placed at the first decorator.
 */
export function decoratorMetadataDiagnostics(reads: PlacedReads, built: Uint8Array, sources: readonly string[]): { errors: Diagnostic[]; warnings: Diagnostic[] } {
  // tsc writes the metadata for experimental decorators only, which esbuild compiles to calls of
  // its helper (`__decorateClass`; minified, the helper's `Object.getOwnPropertyDescriptor`
  // stays): code without either was decorated so nowhere, and no config or source is read for it
  // (a build, a stylesheet edit's above all, reads no tsconfig it does not need).
  const code = bufferView(built);
  if (!code.includes('__decorate') && !code.includes('getOwnPropertyDescriptor')) return { errors: [], warnings: [] };
  const configs = new Map<string, LoadedTsconfig | null>();
  const told = new Set<string>();
  const errors: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  let readsMetadata: boolean | undefined;
  for (const source of sources) {
    if (!TYPESCRIPT_SOURCE.test(source)) continue;
    const config = nearestConfig(reads, dirOf(source), configs);
    if (config?.compilerOptions.emitDecoratorMetadata !== true || told.has(config.file)) continue;
    const text = reads.text(source);
    const offset = text === null ? null : decoratorOffset(text);
    if (offset === null) continue;
    told.add(config.file);
    readsMetadata ??= METADATA_KEY.test(code.toString('utf8'));
    const where = { file: source, ...lineAndColumn(text!, offset) };
    const dropped = `${config.file} sets "emitDecoratorMetadata", which esbuild does not implement: no decorated class gets its "design:paramtypes", "design:type" or "design:returntype" metadata`;
    if (readsMetadata) errors.push(diagnostic('BUNDLE_ERROR', `${dropped}, and the module's code reads that metadata (Reflect.getMetadata("design:..."), a constructor-injection container): it finds none on the page and fails; register each class's dependencies explicitly (tsyringe's @inject(Token), inversify's @inject, Angular's inject()), or build it with tsc`, where));
    else warnings.push(diagnostic('BUNDLE_WARNING', `${dropped}; a container that resolves constructor parameters by their types (tsyringe, inversify, TypeORM entities, Angular's JIT) fails on the page: name each dependency explicitly (@inject(Token)), or remove the option if nothing reads it`, where));
  }
  return { errors, warnings };
}
