// A read of a Node global where the import runs, left a warning only because the module first
// imports another for its effects, which may write that name on the global object (README
// "Bundling real code", Shims): judged across modules, as the link names are. The modules those
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
}

/** The words of the warning about a read taken as defined because of an import for effects: made and read back here only. */
export const effectsShimWarningText = (read: string, name: string, importedFirst: string, remedy: string): string =>
  `${read} is read when the module is imported, and ${name} is Node's: no browser defines it, but the module first imports ${importedFirst} for its effects, which may write ${name} as a member of the global object (a shim), so it is taken as defined; the page throws "ReferenceError: ${name} is not defined" if no module it imports writes it first; ${remedy}`;

const EFFECTS_SHIM_WARNING = /^(\S+) is read when the module is imported, and ([\w$]+) is Node's: no browser defines it, but the module first imports \S+ for its effects, which may write \2 as a member of the global object \(a shim\), so it is taken as defined; the page throws "ReferenceError: \2 is not defined" if no module it imports writes it first; ([^]*)$/;

/** The read, the name and the remedy of such a warning; undefined for any other diagnostic. */
export function effectsShimRead(warning: Diagnostic): { read: string; name: string; remedy: string } | undefined {
  if (warning.kind !== 'BUNDLE_WARNING') return undefined;
  const match = EFFECTS_SHIM_WARNING.exec(warning.message);
  return match ? { read: match[1]!, name: match[2]!, remedy: match[3]! } : undefined;
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
 * failed) leaves every such read a warning. Null when the build has no such read.
 */
export function judgeShimReads(warnings: readonly Diagnostic[] | undefined, facts: ShimFacts | undefined, factsOf: (specifier: string) => ShimFacts | null | undefined): ShimJudgement | null {
  const reads = (warnings ?? []).flatMap((warning) => {
    const read = effectsShimRead(warning);
    return read ? [{ warning, ...read }] : [];
  });
  if (reads.length === 0 || facts === undefined) return null;
  const consulted = new Map<string, ShimFacts | null | undefined>();
  const written = new Set<string>();
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
    for (const name of found.writes) written.add(name);
    queue.push(...found.effects);
  }
  const judgement: ShimJudgement = { errors: [], replaced: [], consulted };
  if (!known) return judgement;
  const modules = [...consulted.keys()].join(', ');
  for (const { warning, read, name, remedy } of reads) {
    if (written.has(name)) continue;
    const message = `${read} is read when the module is imported, and ${name} is Node's: no browser defines it, and no module it imports for its effects writes ${name} as a member of the global object where its import runs (${modules}, each built from the workspace), so the page throws "ReferenceError: ${name} is not defined"; ${remedy}`;
    judgement.errors.push(diagnostic('BUNDLE_ERROR', message, warning));
    judgement.replaced.push(warning);
  }
  return judgement;
}
