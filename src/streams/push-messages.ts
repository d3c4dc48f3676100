// What the open pages are told (README "Preview and stylesheet push"), derived from successive states: a module
// whose stylesheet was rebuilt with new content (`styles`), whose build became invalid or
// changed its diagnostics (`invalid`), whose code changed (`code`), and one that builds
// again after being invalid (`valid`, so pages drop its diagnostics even when the fix
// restored the last good outputs). Only the default browser variant counts, and only once
// it is built from the current sources. Changes are judged against the last good outputs.
import { Observable } from 'rxjs';
import { buildDiagnostics, defaultVariantKey } from '../store/selectors.js';
import type { ModuleBuilds, ServiceState } from '../store/state.js';
import { moduleLabel, stylesAddress, type PushMessage } from '../protocol/push.js';
import type { BuildOutputs } from '../store/events.js';

interface View {
  /** Hashes of the last good outputs (kept while the build is invalid). */
  styles: string | null;
  code: string | null;
  /** The diagnostics now, as JSON; null while the build is valid. */
  diagnostics: string | null;
}

export function pushMessages$(state$: Observable<ServiceState>): Observable<PushMessage> {
  return new Observable<PushMessage>((subscriber) => {
    const views = new Map<string, View>();
    let seenBuilds = new WeakSet<ModuleBuilds>();
    let workspace: ServiceState['workspace'] | null = null;
    return state$.subscribe({
      // What this throws fails the derivation (its supervisor restarts it), not the process.
      next: (state) => {
        try {
          derive(state);
        } catch (error) {
          subscriber.error(error);
        }
      },
      error: (error) => subscriber.error(error),
      complete: () => subscriber.complete(),
    });
    function derive(state: ServiceState) {
      // A new workspace model can change diagnostics without a build: look at every module.
      if (state.workspace !== workspace) {
        workspace = state.workspace;
        seenBuilds = new WeakSet();
      }
      for (const module of state.workspace.modules) {
        if (!module.platforms.includes('web')) continue;
        const builds = state.builds[module.specifier];
        if (!builds || seenBuilds.has(builds)) continue;
        seenBuilds.add(builds);
        const variant = builds.variants[defaultVariantKey(module)];
        if (!variant || variant.status !== 'done' || !variant.last) continue;
        const diagnostics = buildDiagnostics(module, variant.last, state.workspace);
        const label = moduleLabel(module);
        const before = views.get(label);
        const outputs = diagnostics.length === 0 ? variant.last.outputs : null;
        const view: View = outputs
          ? { styles: outputs.styles?.hash ?? null, code: codeOf(outputs), diagnostics: null }
          : { styles: before?.styles ?? null, code: before?.code ?? null, diagnostics: JSON.stringify(diagnostics) };
        views.set(label, view);
        if (!before) continue;
        if (view.diagnostics !== null) {
          if (view.diagnostics !== before.diagnostics) subscriber.next({ type: 'invalid', module: label, diagnostics });
          continue;
        }
        if (before.diagnostics !== null) subscriber.next({ type: 'valid', module: label });
        if (view.styles !== null && view.styles !== before.styles) {
          subscriber.next({ type: 'styles', module: label, href: stylesAddress(module, view.styles) });
        }
        if (view.code !== before.code) subscriber.next({ type: 'code', module: label });
      }
    }
  });
}

/** An `invalid` message for every browser module whose build has diagnostics now: what a page that connects has missed. */
export function invalidMessages(state: ServiceState): PushMessage[] {
  const messages: PushMessage[] = [];
  for (const module of state.workspace.modules) {
    if (!module.platforms.includes('web')) continue;
    const last = state.builds[module.specifier]?.variants[defaultVariantKey(module)]?.last;
    if (!last) continue;
    const diagnostics = buildDiagnostics(module, last, state.workspace);
    if (diagnostics.length > 0) messages.push({ type: 'invalid', module: moduleLabel(module), diagnostics });
  }
  return messages;
}

// The module's code on a page includes the shared files it imports (README "Shared files"): a change of one is a change of its code.
const codeOf = (outputs: BuildOutputs): string => (outputs.chunks ? [outputs.code.hash, ...Object.values(outputs.chunks).map((chunk) => chunk.hash)].join(' ') : outputs.code.hash);
