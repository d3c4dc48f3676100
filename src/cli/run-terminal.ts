// The terminal of `core run`: the banner once it listens, a progress line while the first
// builds run (on a terminal only), the ready line once they are done, and the live lines of
// live-lines.ts while serving.
import { filter, Subscription } from 'rxjs';
import { framedSource } from '../io/source-frames.js';
import type { Service } from '../service.js';
import type { CoreEvent } from '../store/events.js';
import { selectModuleStatus, selectReport, selectSettled } from '../store/selectors.js';
import type { ServiceState } from '../store/state.js';
import { VERSION } from '../version.js';
import { DIAGNOSTIC_KINDS } from '../codes.js';
import { changeTimer, linesBetween, shows, snapshotOf, untoldSnapshot, type LogLevel } from './live-lines.js';
import type { TerminalStyle } from './terminal-style.js';

export interface BannerFacts {
  /** The state once the workspace is read: its packages and modules, not yet built. */
  state: ServiceState;
  url: string;
  development: boolean;
  cdnOrigin: string | null;
  /** The port asked for, when it was busy and another was taken. */
  movedFrom: number | null;
  style: TerminalStyle;
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/**
 * Printed once the service listens, before the first builds are done (README "The terminal
 * of `core run`"): a page asked for meanwhile waits for what it shows, as any answer does.
 */
export function banner(facts: BannerFacts): string {
  const { state, url, style } = facts;
  const counts = `${plural(state.workspace.packages.length, 'package')}, ${plural(state.workspace.modules.length, 'module')}`;
  const row = (label: string, value: string) => `  ${style.green('➜')}  ${style.bold(label.padEnd(10))}${value}\n`;
  return (
    `\n  ${style.bold(style.cyan(`core ${VERSION}`))}\n\n` +
    // The first address line is the base URL alone, so tools reading stdout find it at once.
    `  ${url}\n\n` +
    row('Dashboard', style.cyan(url)) +
    (facts.development ? row('Preview', style.cyan(`${url}preview/`)) : '') +
    // For pages of many modules (README "The bundled preview").
    (facts.development ? row('Bundled', `${style.cyan(`${url}preview/bundled/`)} ${style.dim('(one script, one sheet)')}`) : '') +
    row('State', style.cyan(`${url}state`)) +
    (facts.development ? row('CDN', facts.cdnOrigin ?? style.yellow('not set (CORE_CDN_ORIGIN)')) : '') +
    row('Workspace', `${state.root} ${style.dim(`(${counts})`)}`) +
    (facts.movedFrom !== null ? `\n  ${style.yellow(`port ${facts.movedFrom} is in use, so ${new URL(url).port} is used`)}\n` : '') +
    '\n'
  );
}

/** Printed once every module is built: the time from the start of the process, and the counts. */
export function readyLine(state: ServiceState, readyMs: number, style: TerminalStyle): string {
  const report = selectReport(state);
  const invalid = report.modules.filter((m) => m.status === 'invalid').length;
  // Builds restored from the build cache carry build number 0 (README "The build cache").
  const restored = Object.values(state.builds).filter((builds) => Object.values(builds.variants).some((variant) => variant.last?.build === 0)).length;
  // Those of the team's remote cache too (README "A team's remote cache"), told apart.
  const team = state.remoteCache?.hits ?? 0;
  const cached = (restored > team ? `, ${restored - team} from the build cache` : '') + (team > 0 ? `, ${team} from the team cache` : '');
  // A top-level error (a package.json that is not JSON: its package's modules gone, so not counted
  // invalid) is counted too, so the line never says all is well while `✘` lines follow it.
  const errors = report.diagnostics.filter((d) => DIAGNOSTIC_KINDS[d.kind].severity === 'error').length;
  const workspaceErrors = errors === 0 ? '' : `, ${style.red(plural(errors, 'workspace error'))}`;
  const counts = `${plural(report.modules.length, 'module')}${cached}, ${invalid === 0 && errors === 0 ? style.green('0 invalid') : style.red(`${invalid} invalid`)}${workspaceErrors}`;
  return `  ${style.green('✓')} ${style.dim('ready in')} ${style.bold(`${Math.round(readyMs)} ms`)}  ${style.dim('(')}${counts}${style.dim(')')}\n\n`;
}

/** A progress line rewritten in place while the first builds run; nothing once settled. */
export function showProgress(service: Service, style: TerminalStyle): Subscription {
  let last = 0;
  let shown = false;
  const subscription = service.state$.subscribe((state) => {
    const now = Date.now();
    if (selectSettled(state) || now - last < 100 || state.workspace.modules.length < 20) return;
    last = now;
    const built = state.workspace.modules.filter((module) => selectModuleStatus(state, module).status !== 'pending').length;
    process.stdout.write(`\r  ${style.dim('building')} ${built}/${state.workspace.modules.length} modules`);
    shown = true;
  });
  subscription.add(() => {
    if (shown) process.stdout.write('\r\u001b[2K');
  });
  return subscription;
}

/**
 * Writes a line for each meaningful change of the settled state (and each event under `debug`),
 * starting from `told`, the state the banner described.
 */
export function followChanges(service: Service, told: ServiceState, root: string, logLevel: LogLevel, style: TerminalStyle): Subscription {
  const subscription = new Subscription();
  if (logLevel === 'silent') return subscription;
  const readSource = (file: string, hash: string | null) => framedSource(root, file, hash);
  const sinceChange = changeTimer(() => performance.now());
  const debug = (event: CoreEvent) => process.stderr.write(`${style.dim(`#${event.seq} ${event.type}`)} ${summarize(event as unknown as Record<string, unknown>)}\n`);
  // Under debug, the events of the start too: they happened before the banner.
  if (logLevel === 'debug') for (const event of service.internals.log.events(0)) debug(event);
  subscription.add(
    service.events$.subscribe((event) => {
      if (event.type === 'files.changed' || event.type === 'workspace.read') sinceChange.changed(selectSettled(service.internals.store.getState()));
      if (logLevel === 'debug') debug(event);
    }),
  );
  let before = untoldSnapshot(told);
  subscription.add(
    // The current state first (what is broken at start), then each settled one.
    service.state$.pipe(filter(selectSettled)).subscribe((state) => {
      const after = snapshotOf(state);
      for (const line of linesBetween(before, after, state, { style, readSource, sinceChange: sinceChange.settled() })) {
        if (shows(logLevel, line.level)) (line.level === 'error' || line.level === 'warn' ? process.stderr : process.stdout).write(`${time(style)} ${line.text}\n`);
      }
      before = after;
    }),
  );
  return subscription;
}

const time = (style: TerminalStyle) => style.dim(new Date().toTimeString().slice(0, 8));

function summarize(event: Record<string, unknown>): string {
  const { seq: _seq, time: _time, type: _type, workspace, ...rest } = event;
  const text = JSON.stringify(workspace ? { ...rest, workspace: '…' } : rest);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
