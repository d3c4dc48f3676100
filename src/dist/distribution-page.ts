// The page `core dist` writes (README "Distribution: core dist"): the production page of the
// preview entry, so the output directory served by any static server shows the app. Like
// the preview, it links the stylesheet of every module of the entry's package and of every
// module they reach by bare import, preloads their code, and imports the entry; every
// address is relative, so the page works at the root of the output directory. Pure.
import { escapeHtml, htmlPage, importMapScript } from '../html-page.js';
import { choosePreviewEntry } from '../workspace/preview-entry.js';
import type { WorkspaceModel } from '../workspace/model.js';
import type { WrittenModule } from './judge-module.js';
import { codePath, importMapAddress, stylesPath } from './output-paths.js';

export const DISTRIBUTION_PAGE = 'index.html';

export type DistributionPage = { ok: true; entry: string; html: string } | { ok: false; reason: string };


export function distributionPage(workspace: WorkspaceModel, written: readonly WrittenModule[], importMap: { imports: Record<string, string> }): DistributionPage {
  const chosen = choosePreviewEntry(workspace);
  if ('reason' in chosen) return { ok: false, reason: chosen.message };
  const browser = new Map(written.filter((outcome) => outcome.target === 'browser').map((outcome) => [outcome.module.specifier, outcome]));
  if (!browser.has(chosen.specifier)) return { ok: false, reason: `the preview entry ${chosen.specifier} was not written` };
  const packageModules = [...browser.values()].filter((outcome) => outcome.module.package === chosen.package).map((outcome) => outcome.module.specifier);
  const { reached, unwritten } = walkImports(chosen.specifier, packageModules, browser, new Set(workspace.modules.map((module) => module.specifier)));
  // A valid entry that imports a module of the workspace not written (invalid) fails to load:
  // no page that cannot run (README "Distribution: core dist").
  if (unwritten.length > 0) return { ok: false, reason: `the preview entry ${chosen.specifier} imports ${unwritten.join(', ')}, which ${unwritten.length === 1 ? 'was' : 'were'} not written` };

  const head = [
    ...reached.filter((outcome) => outcome.files.some((file) => file.kind === 'styles')).map((outcome) => `    <link rel="stylesheet" href="${escapeHtml(importMapAddress(stylesPath(outcome.module)))}">`),
    ...reached.map((outcome) => `    <link rel="modulepreload" href="${escapeHtml(importMapAddress(codePath(outcome.module)))}">`),
  ];
  const html = htmlPage(chosen.specifier, [
    importMapScript(importMap),
    ...head,
    `    <script type="module" src="${escapeHtml(importMapAddress(codePath(chosen)))}"></script>`,
  ]);
  return { ok: true, entry: chosen.specifier, html };
}

/**
 * One walk of the written modules' bare imports, from the entry first, then from each of `roots`
 * (the modules of its package): `reached`, every written module it comes to, each once, in the
 * order they are first reached (the order of the page's links); `unwritten`, the modules of the
 * workspace the entry imports, itself or through written modules, that were not written.
 */
function walkImports(entry: string, roots: readonly string[], written: ReadonlyMap<string, WrittenModule>, workspaceModules: ReadonlySet<string>): { reached: WrittenModule[]; unwritten: string[] } {
  const reached: WrittenModule[] = [];
  const unwritten = new Set<string>();
  const seen = new Set<string>();
  let fromEntry = true;
  const visit = (specifier: string) => {
    if (seen.has(specifier)) return;
    seen.add(specifier);
    const outcome = written.get(specifier);
    if (!outcome) {
      if (fromEntry && workspaceModules.has(specifier)) unwritten.add(specifier);
      return;
    }
    reached.push(outcome);
    for (const record of outcome.imports) visit(record.specifier);
  };
  visit(entry);
  fromEntry = false;
  for (const root of roots) visit(root);
  return { reached, unwritten: [...unwritten].sort() };
}
