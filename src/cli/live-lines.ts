// What `core run` tells the person at the terminal while it serves: one line (or one block,
// for a failure with its code frame) per meaningful change of the settled state. Pure: the
// command passes the states, the time and a reader of source files, and writes what comes back.
import { DIAGNOSTIC_KINDS } from '../codes.js';
import type { Diagnostic } from '../workspace/diagnostics.js';
import { defaultVariantKey, groupStructureWarnings, isStructureWarning, selectReport, unbuiltByEngine, type ModuleReport } from '../store/selectors.js';
import type { ServiceState } from '../store/state.js';
import { indexWorkspace } from '../workspace/workspace-index.js';
import type { TerminalStyle } from './terminal-style.js';
import { codeOf, keepsLastGoodSheet } from '../effects/push-messages.js';
import { readHashOf, SOURCE_CHANGED, type FramedSource } from '../io/source-frames.js';

export const LOG_LEVELS = ['silent', 'error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LineLevel = Exclude<LogLevel, 'silent'>;

export interface TerminalLine {
  level: LineLevel;
  text: string;
}

/** What the terminal last told about the workspace. */
export interface TerminalSnapshot {
  modules: Map<string, { status: ModuleReport['status']; diagnostics: string; styles: string | null; code: string | null }>;
  warnings: Set<string>;
  topLevel: Set<string>;
  selection: string | null;
  /** Package name to version. */
  versions: Map<string, string>;
}

/** More modules than this changing alike in one step are told in one line. */
export const BURST = 3;

/** The lines of a file while it hashes to `hash` (`framedSource` of src/io/source-frames.ts, given the root). */
type ReadSource = (file: string, hash: string | null) => FramedSource;

const key = (d: Diagnostic) => `${d.kind} ${d.file ?? ''}:${d.line ?? ''}:${d.column ?? ''} ${d.message}`;
const warningsOf = (module: ModuleReport): Diagnostic[] => (module as ModuleReport & { warnings?: Diagnostic[] }).warnings ?? [];

export function snapshotOf(state: ServiceState): TerminalSnapshot {
  const report = selectReport(state);
  const modules: TerminalSnapshot['modules'] = new Map();
  const warnings = new Set<string>();
  const index = indexWorkspace(state.workspace);
  for (const module of report.modules) {
    const model = index.modules.get(module.specifier);
    const outputs = model ? state.builds[module.specifier]?.variants[defaultVariantKey(model)]?.last?.outputs : undefined;
    modules.set(module.specifier, { status: module.status, diagnostics: module.diagnostics.map(key).join('\n'), styles: outputs?.styles?.hash ?? null, code: outputs ? codeOf(outputs) : null });
    for (const warning of warningsOf(module)) warnings.add(`${module.specifier} ${key(warning)}`);
  }
  return {
    modules,
    warnings,
    topLevel: new Set([...report.diagnostics, ...(report.warnings ?? [])].map(key)),
    selection: JSON.stringify(state.workspace.selection),
    versions: new Map(state.workspace.packages.map((pkg) => [pkg.name, pkg.version])),
  };
}

/** The snapshot of a terminal that has told nothing yet: every problem of `state` is news. */
export function untoldSnapshot(state: ServiceState): TerminalSnapshot {
  const told = snapshotOf(state);
  const modules: TerminalSnapshot['modules'] = new Map();
  for (const [specifier, module] of told.modules) modules.set(specifier, { status: 'pending', diagnostics: '', styles: module.styles, code: module.code });
  return { modules, warnings: new Set(), topLevel: new Set(), selection: told.selection, versions: told.versions };
}

/**
 * A diagnostic as esbuild prints one: the message, then where, then the line with a caret (from
 * `source`, the file's lines, or the line saying it changed since: README "Code frames"); last,
 * what to do about its kind (README "Error codes").
 */
export function formatDiagnostic(d: Diagnostic, style: TerminalStyle, source: FramedSource, mark = style.red('✘'), about = ''): string {
  // A production build's finding says so: the development page may run (README "Addresses").
  const head = `${mark} ${style.bold(`[${d.kind}]`)} ${d.env ? `${d.env} build: ` : ''}${d.message}${about ? style.dim(`  ${about}`) : ''}`;
  const remedy = `    ${style.dim(`→ ${DIAGNOSTIC_KINDS[d.kind].remedy}`)}`;
  if (!d.file) return `${head}\n${remedy}`;
  const place = `${d.file}${d.line ? `:${d.line}${d.column ? `:${d.column}` : ''}` : ''}`;
  const lines = [head, `    ${style.cyan(place)}:`];
  if (source === 'changed') lines.push(`      ${style.dim(SOURCE_CHANGED)}`);
  const text = d.line && source !== null && source !== 'changed' ? (source[d.line - 1] ?? null) : null;
  if (text !== null && d.line) {
    const number = String(d.line);
    const shown = text.length > 160 ? `${text.slice(0, 160)}…` : text;
    lines.push(`      ${number} │ ${shown}`);
    if (d.column) lines.push(`      ${' '.repeat(number.length)} ╵ ${' '.repeat(Math.min(d.column - 1, 160))}${style.green('^')}`);
  }
  lines.push(remedy);
  return lines.join('\n');
}

/**
 * How long ago the change a settled state answers was seen. A change that left the state
 * settled (a file of a module that cannot build) started nothing to time: counted, it stood
 * until the next settled state, which then told the time since that old change.
 */
export function changeTimer(now: () => number) {
  let since: number | null = null;
  return {
    /** A change was reduced; `settled`: the state after it. */
    changed(settled: boolean) {
      if (!settled) since ??= now();
    },
    /** A settled state is told: the time since the first change it answers, if any. */
    settled(): number | null {
      const took = since === null ? null : now() - since;
      since = null;
      return took;
    },
  };
}

export interface ChangeContext {
  style: TerminalStyle;
  readSource: ReadSource;
  /** How long ago the change that caused this state was seen, in ms, when known. */
  sinceChange: number | null;
}

/** The lines that tell what changed from `before` to the settled state `after`. */
export function linesBetween(before: TerminalSnapshot, after: TerminalSnapshot, state: ServiceState, context: ChangeContext): TerminalLine[] {
  const { style } = context;
  const told = diagnosticTeller(state, context);
  const lines: TerminalLine[] = [];
  const report = selectReport(state);
  const reports = new Map(report.modules.map((m) => [m.specifier, m]));

  const added = [...after.modules.keys()].filter((s) => !before.modules.has(s));
  const removed = [...before.modules.keys()].filter((s) => !after.modules.has(s));
  const versioned = [...after.versions].filter(([name, version]) => before.versions.has(name) && before.versions.get(name) !== version);
  if (added.length > 0 || removed.length > 0 || versioned.length > 0) {
    const parts = [
      ...versioned.map(([name, version]) => `${name} ${before.versions.get(name)} → ${style.bold(version)}`),
      ...added.map((s) => style.green(`+${s}`)),
      ...removed.map((s) => style.red(`-${s}`)),
    ];
    const shown = parts.length > 6 ? `${parts.slice(0, 6).join(' ')} and ${parts.length - 6} more` : parts.join(' ');
    lines.push({ level: 'info', text: `${style.cyan('manifests')} read again: ${shown}` });
  }
  if (before.selection !== after.selection) {
    const selection = state.workspace.selection;
    lines.push({ level: 'info', text: `${style.cyan('selection')} ${selection === null ? 'every package in development' : `in development: ${selection.join(', ') || '(none)'}`}` });
  }

  lines.push(...statusLines(before, after, reports, context, told));

  const news: { module: string; warning: Diagnostic }[] = [];
  // Warnings about a package's own structure are told one line per package and kind, counted
  // (README "Warnings"): a library's user cannot change them, and there may be hundreds.
  const structural: ModuleReport[] = [];
  for (const module of report.modules) {
    const fresh = warningsOf(module).filter((warning) => !before.warnings.has(`${module.specifier} ${key(warning)}`));
    const own = fresh.filter((warning) => isStructureWarning(module, warning));
    if (own.length > 0) structural.push({ ...module, warnings: own });
    for (const warning of fresh) if (!own.includes(warning)) news.push({ module: module.specifier, warning });
  }
  for (const group of groupStructureWarnings(structural)) {
    const count = group.count === 1 ? `a ${group.kind} warning` : `${group.count} ${group.kind} warnings`;
    lines.push({ level: 'warn', text: `${style.yellow('▲')} ${style.bold(group.package)}: ${count} about its own structure, in ${group.modules} module${group.modules === 1 ? '' : 's'}${style.dim(' (each on /state and the dashboard)')}` });
  }
  if (news.length > BURST) {
    const kinds = new Map<string, number>();
    for (const { warning } of news) kinds.set(warning.kind, (kinds.get(warning.kind) ?? 0) + 1);
    const counted = [...kinds].map(([kind, count]) => `${kind} ×${count}`).join(', ');
    lines.push({ level: 'warn', text: `${style.yellow('▲')} ${news.length} warnings (${counted}): each module's are on /state and the dashboard` });
  } else {
    for (const { module, warning } of news) lines.push({ level: 'warn', text: told(warning, module, style.yellow('▲')) });
  }
  // A top-level error (a broken package.json, whose modules are gone) is marked as esbuild marks
  // an error, as a module's are (README "The terminal of `core run`"); a hint as a warning.
  for (const d of [...report.diagnostics, ...(report.warnings ?? [])]) {
    const error = DIAGNOSTIC_KINDS[d.kind].severity === 'error';
    if (!before.topLevel.has(key(d))) lines.push({ level: error ? 'error' : 'warn', text: told(d, null, error ? style.red('✘') : style.yellow('▲')) });
  }
  return lines;
}

/** A diagnostic of `module` (null: of the workspace) with its line, by the rule of every code frame. */
type DiagnosticTeller = (d: Diagnostic, module: string | null, mark: string) => string;

function diagnosticTeller(state: ServiceState, context: ChangeContext): DiagnosticTeller {
  return (d, module, mark) => formatDiagnostic(d, context.style, d.file && d.line ? context.readSource(d.file, readHashOf(state, module, d.file)) : null, mark, module ?? '');
}

/** The lines of the modules whose status, stylesheet or code changed from `before` to `after`. */
function statusLines(before: TerminalSnapshot, after: TerminalSnapshot, reports: ReadonlyMap<string, ModuleReport>, context: ChangeContext, told: DiagnosticTeller): TerminalLine[] {
  const { style } = context;
  const lines: TerminalLine[] = [];
  const broken: string[] = [];
  const healed: string[] = [];
  const restyled: string[] = [];
  const recoded: string[] = [];
  for (const [specifier, now] of after.modules) {
    const was = before.modules.get(specifier);
    if (now.status === 'invalid' && (was?.status !== 'invalid' || was.diagnostics !== now.diagnostics)) broken.push(specifier);
    else if (now.status === 'valid' && was?.status === 'invalid') healed.push(specifier);
    if (was && now.status === 'valid' && was.styles !== null && now.styles !== null && was.styles !== now.styles) restyled.push(specifier);
    // A save of code is told too (a page that loads it reloads), as a stylesheet's push is.
    if (was?.status === 'valid' && now.status === 'valid' && was.code !== null && now.code !== null && was.code !== now.code) recoded.push(specifier);
  }
  // esbuild unavailable is told once for every module it left unbuilt; their other errors as any.
  lines.push(...engineLines(broken, reports, style));
  const errorsOf = (specifier: string) => reports.get(specifier)!.diagnostics.filter((d) => !isEngineUnavailable(d));
  const others = broken.filter((specifier) => errorsOf(specifier).length > 0);
  if (others.length > BURST) {
    const first = errorsOf(others[0]!)[0];
    const more = others.length > 4 ? ` and ${others.length - 4} more` : '';
    lines.push({ level: 'error', text: `${style.red('✘')} ${others.length} modules invalid: ${others.slice(0, 4).join(', ')}${more}` });
    if (first) lines.push({ level: 'error', text: told(first, others[0]!, style.red('✘')) });
  } else {
    for (const specifier of others) {
      for (const d of errorsOf(specifier)) lines.push({ level: 'error', text: told(d, specifier, style.red('✘')) });
    }
  }
  if (healed.length > BURST) lines.push({ level: 'info', text: `${style.green('✔')} ${healed.length} modules valid again` });
  else for (const specifier of healed) lines.push({ level: 'info', text: `${style.green('✔')} ${specifier} valid again` });
  const took = context.sinceChange === null ? '' : style.dim(` (${Math.round(context.sinceChange)} ms)`);
  // An open page keeps its last good sheet while the stylesheet has a syntax problem (README "Warnings").
  const keptBack = (specifier: string) => keepsLastGoodSheet(warningsOf(reports.get(specifier)!));
  if (restyled.length > BURST) {
    const held = restyled.filter(keptBack).length;
    const pushed = restyled.length - held;
    const told = [...(pushed > 0 ? [`${pushed} stylesheets pushed`] : []), ...(held > 0 ? [`${held} rebuilt with a CSS syntax problem: open pages keep their last good sheets`] : [])];
    lines.push({ level: 'info', text: `${style.cyan('styles')} ${told.join(', ')}${took}` });
  } else {
    for (const specifier of restyled) {
      const kept = keptBack(specifier);
      lines.push({ level: 'info', text: `${style.cyan('styles')} ${specifier} ${kept ? 'rebuilt with a CSS syntax problem: open pages keep the last good sheet' : 'pushed'}${took}` });
    }
  }
  if (recoded.length > BURST) lines.push({ level: 'info', text: `${style.cyan('code')} ${recoded.length} modules rebuilt${took}` });
  else for (const specifier of recoded) lines.push({ level: 'info', text: `${style.cyan('code')} ${specifier} rebuilt${took}` });
  return lines;
}

const isEngineUnavailable = (d: Diagnostic): boolean => d.kind === 'ENGINE_UNAVAILABLE';

/**
 * The modules of `broken` that esbuild's process could not build, told in one line with what
 * brings it back (README "When esbuild's process dies"): each module's error says the same.
 */
function engineLines(broken: readonly string[], reports: ReadonlyMap<string, ModuleReport>, style: TerminalStyle): TerminalLine[] {
  const unbuilt = unbuiltByEngine(broken.map((specifier) => reports.get(specifier)!));
  if (!unbuilt) return [];
  const { modules, why } = unbuilt;
  const named = modules.length > 4 ? `${modules.slice(0, 4).join(', ')} and ${modules.length - 4} more` : modules.join(', ');
  const count = modules.length === 1 ? '1 module' : `${modules.length} modules`;
  return [{ level: 'error', text: formatDiagnostic({ kind: 'ENGINE_UNAVAILABLE', message: `esbuild is unavailable (${why}): ${count} not built, ${named}` }, style, null) }];
}

export const shows = (threshold: LogLevel, level: LineLevel): boolean => LOG_LEVELS.indexOf(level) <= LOG_LEVELS.indexOf(threshold);
