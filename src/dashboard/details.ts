// What the dashboard shows beside `/state`: each module's outputs (addresses, sizes, hashes),
// its last build, its bare imports and its importers, the selection and the CDN origin.
// Derived from the state and the build history only, like `/state` (`GET /state/details`).
import type { BuildHistory, BuildSpan } from '../store/build-history.js';
import type { BuildReason } from '../store/events.js';
import { defaultVariantKey, selectImporters, selectVariant } from '../store/selectors.js';
import type { ServiceState } from '../store/state.js';
import type { ImportRecord } from '../workspace/checks.js';

export interface OutputDetails {
  address: string;
  hash: string;
  size: number;
}

export interface LastBuild {
  build: number;
  reason: BuildReason;
  incremental: boolean;
  started: string;
  ended: string | null;
  /** Milliseconds from build.started to the module's result; null while it runs. */
  duration: number | null;
  outcome: string;
}

export interface ModuleDetails {
  specifier: string;
  dir: string;
  entry: string | null;
  variant: string;
  /** null: no successful build of the current sources to show. */
  code: OutputDetails | null;
  styles: OutputDetails | null;
  assets: { file: string; address: string }[];
  lastBuild: LastBuild | null;
  imports: ImportRecord[];
  /** Workspace modules whose last build imports this one. */
  importers: string[];
}

export interface Details {
  seq: number;
  cdnOrigin: string | null;
  /** Packages selected for development; null: every package. */
  selection: string[] | null;
  packages: { name: string; version: string; dir: string; development: boolean }[];
  preview: string | null;
  modules: ModuleDetails[];
  /** The last builds (at most RECENT_BUILDS), oldest first: the dashboard's timeline. */
  builds: BuildSpan[];
  /** `GET /state/details` adds `frames`: `file:line` -> the source lines around it, for diagnostics. */
  frames?: Record<string, string>;
}

export const RECENT_BUILDS = 300;

const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

export function selectDetails(state: ServiceState, history: BuildHistory, cdnOrigin: string | null): Details {
  const { workspace } = state;
  const importers = selectImporters(state);
  const selection = workspace.selection;
  return {
    seq: state.seq,
    cdnOrigin,
    selection,
    packages: workspace.packages.map((p) => ({ name: p.name, version: p.version, dir: p.dir, development: selection === null || selection.includes(p.name) })),
    preview: workspace.preview,
    builds: history.spans().slice(-RECENT_BUILDS),
    modules: workspace.modules.map((module, index) => {
      const variant = defaultVariantKey(module);
      const record = selectVariant(state, module.specifier, variant)?.last ?? null;
      const base = `/m/${module.package}@${module.version}`;
      const subpath = encodePath(module.subpath);
      const span = history.lastBuild(module.specifier, variant);
      const outputs = record?.outputs ?? null;
      return {
        specifier: module.specifier,
        dir: module.dir,
        entry: module.entry,
        variant,
        code: outputs ? { address: `${base}/modules/${subpath}`, ...outputs.code } : null,
        styles: outputs?.styles ? { address: `${base}/styles/${subpath}`, ...outputs.styles } : null,
        assets: module.assets.map((file) => ({ file, address: `${base}/assets/${subpath}/${encodePath(file)}` })),
        lastBuild: span
          ? {
              build: span.build,
              reason: span.reason,
              incremental: span.incremental,
              started: span.started,
              ended: span.ended,
              duration: span.ended === null ? null : Date.parse(span.ended) - Date.parse(span.started),
              outcome: span.outcome === 'failed' && !span.failed.includes(module.specifier) ? 'succeeded' : span.outcome,
            }
          : null,
        imports: record?.imports ?? [],
        importers: importers[index]!.map((importer) => workspace.modules[importer]!.specifier).sort(),
      };
    }),
  };
}
