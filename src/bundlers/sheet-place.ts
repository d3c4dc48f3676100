// Where a module's own sheet stands among its bare imports (README "Preview and stylesheet push"):
// every bundler joins sheets in the order the code imports them, depth first, so an import of
// the module's own sheet written before a library's puts the library's rules after the module's.
// A module has one sheet: it can stand before an import only when every own sheet import is
// written before that import.
import type * as esbuild from 'esbuild';
import { isBare } from '../workspace/specifiers.js';
import { CODE_IMPORT_KINDS } from './import-kinds.js';
import { isCrossed } from './plugins/module-boundaries.js';

/**
 * The bare specifiers a module's code first imports after its last import of a sheet of its own,
 * walking its files from `entryPoint` depth first in the order each writes its imports, as a
 * bundler orders the sheets it joins; empty when the module imports no sheet of its own.
 */
export function importsAfterOwnSheet(inputs: esbuild.Metafile['inputs'], entryPoint: string | undefined): Set<string> {
  const events: ({ sheet: true } | { specifier: string })[] = [];
  const visited = new Set<string>();
  const walk = (file: string): void => {
    if (visited.has(file)) return;
    visited.add(file);
    for (const record of inputs[file]?.imports ?? []) {
      if (!CODE_IMPORT_KINDS.has(record.kind)) continue;
      // A relative import of another module's entry stands for that module's specifier.
      const crossed = isCrossed(record.path) ? inputs[record.path]?.imports.find((imported) => imported.external) : undefined;
      const specifier = crossed ? crossed.path : record.external ? record.path : null;
      if (specifier !== null) {
        if (isBare(specifier)) events.push({ specifier });
      } else if (/\.css$/.test(record.path)) events.push({ sheet: true });
      else walk(record.path);
    }
  };
  if (entryPoint !== undefined) walk(entryPoint);
  let lastSheet = -1;
  events.forEach((event, at) => {
    if ('sheet' in event) lastSheet = at;
  });
  const after = new Set<string>();
  if (lastSheet < 0) return after;
  const before = new Set(events.slice(0, lastSheet).flatMap((event) => ('specifier' in event ? [event.specifier] : [])));
  for (const event of events.slice(lastSheet + 1)) if ('specifier' in event && !before.has(event.specifier)) after.add(event.specifier);
  return after;
}
