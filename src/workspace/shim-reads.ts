// A read of a Node global where the import runs, or a use of another name nothing binds (`cache =
// {}`, `gtag('js')`, README "Bundling real code", names nothing binds), left a warning only because
// the module first imports another for its effects, which may write that name on the global object
// (README "Bundling real code", Shims): judged across modules, as the link names are. The modules those
// imports run (and theirs, through their own imports for effects) each say which names their code
// may write; when every one of them is a workspace module whose build is known, and none writes
// the name, the read surely throws on a page: a BUNDLE_ERROR, derived from both builds, so that an
// edit of the imported module alone changes the importer's verdict.
import { diagnostic, type Diagnostic } from './diagnostics.js';

/** What another module's verdict needs of a browser build's code (README "Bundling real code", Shims). */
export interface ShimFacts {
  /**
   * Node's globals its code may write as members of the global object where its import runs (a
   * write the shim rules count, or any name its code holds when it writes a member not named, as
   * `globalThis[key] = ...`); sorted.
   */
  writes: string[];
  /** The modules it imports for their effects only that may run code, in order: they run before it. */
  effects: string[];
  /**
   * The other names (not Node's) its code may write as members of the global object where its
   * import runs (`globalThis.cache = {}`), sorted; null when it may write any name (a member by a
   * key not named, the global object handed on). Absent from a record made before these were
   * recorded: not known, so a read of such a name is left a warning.
   */
  others?: string[] | null;
}

/** The words of the warning about a read taken as defined because of an import for effects: made and read back here only. */
export const effectsShimWarningText = (read: string, name: string, importedFirst: string, remedy: string): string =>
  `${read} is read when the module is imported, and ${name} is Node's: no browser defines it, but the module first imports ${importedFirst} for its effects, which may write ${name} as a member of the global object (a shim), so it is taken as defined; the page throws "ReferenceError: ${name} is not defined" if no module it imports writes it first; ${remedy}`;

const EFFECTS_SHIM_WARNING = /^(\S+) is read when the module is imported, and ([\w$]+) is Node's: no browser defines it, but the module first imports \S+ for its effects, which may write \2 as a member of the global object \(a shim\), so it is taken as defined; the page throws "ReferenceError: \2 is not defined" if no module it imports writes it first; ([^]*)$/;

/**
 * The words of the warning about a use of a name nothing binds (not Node's: `cache = {}`, `gtag()`)
 * taken as defined because of an import for effects: made and read back here only.
 */
export const effectsShimUseText = (name: string, use: 'read' | 'written', importedFirst: string, remedy: string): string =>
  `${name} is ${use} when the module is imported, and nothing binds it: no page the service serves (the preview, core dist's index.html) defines it, but the module first imports ${importedFirst} for its effects, which may write ${name} as a member of the global object (a shim), so it is taken as defined; the page throws "ReferenceError: ${name} is not defined" if no module it imports writes it first; ${remedy}`;

const EFFECTS_SHIM_USE = /^([\w$]+) is (read|written) when the module is imported, and nothing binds it: no page the service serves \(the preview, core dist's index\.html\) defines it, but the module first imports \S+ for its effects, which may write \1 as a member of the global object \(a shim\), so it is taken as defined; the page throws "ReferenceError: \1 is not defined" if no module it imports writes it first; ([^]*)$/;

/** A use taken as defined because of an import for effects: of one of Node's globals (`node`), or of another name nothing binds. */
export interface EffectsShimRead {
  read: string;
  name: string;
  remedy: string;
  /** Node's global (its facts are `writes`), or another name (`others`), read or written. */
  use: 'node' | 'read' | 'written';
}

/** The read, the name and the remedy of such a warning; undefined for any other diagnostic. */
export function effectsShimRead(warning: Diagnostic): EffectsShimRead | undefined {
  if (warning.kind !== 'BUNDLE_WARNING') return undefined;
  const match = EFFECTS_SHIM_WARNING.exec(warning.message);
  if (match) return { read: match[1]!, name: match[2]!, remedy: match[3]!, use: 'node' };
  const other = EFFECTS_SHIM_USE.exec(warning.message);
  return other ? { read: other[1]!, name: other[1]!, remedy: other[3]!, use: other[2] as 'read' | 'written' } : undefined;
}

/** What the judgement of a build's reads taken as defined found. */
export interface ShimJudgement {
  /** A BUNDLE_ERROR for each read no module run before it writes, at the warning's place. */
  errors: Diagnostic[];
  /** The warnings those errors replace (the same objects as the build's). */
  replaced: Diagnostic[];
  /** Every module consulted, with what was known of it: undefined, not known; null, not built yet. */
  consulted: Map<string, ShimFacts | null | undefined>;
}

/**
 * The reads of `warnings` taken as defined only because of imports for effects, judged against
 * the modules `facts.effects` run (transitively through their own imports for effects): a read is
 * an error when each of those is known (`factsOf` gives its facts: a workspace module built) and
 * none writes its name; one module not known (an installed package, a CDN's, one not built or
 * failed) leaves every such read a warning, and one that may write any name (or whose record does
 * not say) leaves every use of a name not Node's one. Null when the build has no such read.
 */
export function judgeShimReads(warnings: readonly Diagnostic[] | undefined, facts: ShimFacts | undefined, factsOf: (specifier: string) => ShimFacts | null | undefined): ShimJudgement | null {
  const reads = (warnings ?? []).flatMap((warning) => {
    const read = effectsShimRead(warning);
    return read ? [{ warning, ...read }] : [];
  });
  if (reads.length === 0 || facts === undefined) return null;
  const consulted = new Map<string, ShimFacts | null | undefined>();
  const written = new Set<string>();
  // Every other name is possibly written when a module may write any, or its record does not say.
  let othersKnown = true;
  const queue = [...facts.effects];
  let known = queue.length > 0;
  for (let specifier = queue.shift(); specifier !== undefined; specifier = queue.shift()) {
    if (consulted.has(specifier)) continue;
    const found = factsOf(specifier);
    consulted.set(specifier, found);
    if (!found) {
      known = false;
      continue;
    }
    for (const name of [...found.writes, ...(found.others ?? [])]) written.add(name);
    if (!Array.isArray(found.others)) othersKnown = false;
    queue.push(...found.effects);
  }
  const judgement: ShimJudgement = { errors: [], replaced: [], consulted };
  if (!known) return judgement;
  const modules = [...consulted.keys()].join(', ');
  for (const { warning, read, name, remedy, use } of reads) {
    if (written.has(name) || (use !== 'node' && !othersKnown)) continue;
    const unwritten = `no module it imports for its effects writes ${name} as a member of the global object where its import runs (${modules}, each built from the workspace)`;
    const message =
      use === 'node'
        ? `${read} is read when the module is imported, and ${name} is Node's: no browser defines it, and ${unwritten}, so the page throws "ReferenceError: ${name} is not defined"; ${remedy}`
        : `${name} is ${use} when the module is imported, and nothing binds it: no page the service serves (the preview, core dist's index.html) defines it, and ${unwritten}, so the page throws "ReferenceError: ${name} is not defined"; ${remedy}`;
    judgement.errors.push(diagnostic('BUNDLE_ERROR', message, warning));
    judgement.replaced.push(warning);
  }
  return judgement;
}
