// Shared by the reliability tests: quiet trees, event logs, fresh-service reports, markers.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { MTIME_LAG_MS } from '../../src/io/file-hashes.js';
import type { CoreEvent } from '../../src/store/events.js';
import type { Report } from '../../src/store/selectors.js';
import { serve } from '../helpers/service.js';

export type Served = Awaited<ReturnType<typeof serve>>;

/**
 * Dates every file and directory under `root` a minute back. A file modified within the last
 * few milliseconds of a build may have been read in either version, so the service builds it
 * again (src/io/file-hashes.ts, "racy git"); a test counting builds starts from a tree
 * that has been quiet for a while, as a developer's tree is. Dating a file is a change of it
 * (its ctime, which the service judges too: README "Addresses"), so it returns once that change
 * is out of the window of a build starting then.
 */
export function quietTree(root: string): void {
  const past = new Date(Date.now() - 60_000);
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(file);
      fs.utimesSync(file, past, past);
    }
  };
  visit(root);
  fs.utimesSync(root, past, past);
  const dated = Date.now();
  while (Date.now() <= dated + MTIME_LAG_MS);
}

export const parseNdjson = (text: string): CoreEvent[] =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as CoreEvent);

/** The `/state` report of `service`, asserted 200. */
export async function stateOf(service: Served): Promise<Report> {
  const answer = await service.get('/state');
  expect(answer.status, answer.text.slice(0, 300)).to.equal(200);
  return answer.json<Report>();
}

/** The report a service started afresh on `root` answers (it is stopped again). */
export async function freshReport(root: string): Promise<Report> {
  const fresh = await serve(root, { watch: false, logger: () => {} });
  try {
    return await stateOf(fresh);
  } finally {
    await fresh.close();
  }
}

/** The module of `report` with `specifier`. */
export const moduleOf = (report: Report, specifier: string) => report.modules.find((m) => m.specifier === specifier);

/** Lines a service reported that tell of a defect: an internal error, a pipeline that failed, a recording that stopped. */
export const defects = (lines: readonly string[]): string[] => lines.filter((line) => /internal error|effect failed|stopped/i.test(line));

/**
 * A report with the text of BUNDLE_ERROR messages left out (kinds, files and positions kept):
 * esbuild words a failure differently in an incremental rebuild than in a first build (a
 * directory it had cached, now a file), which says nothing about the service being current.
 */
export const outline = (report: Report) => ({
  diagnostics: report.diagnostics,
  modules: report.modules.map((m) => ({ ...m, diagnostics: [...new Set(m.diagnostics.map((d) => (d.kind === 'BUNDLE_ERROR' ? `${d.kind} ${d.file}` : JSON.stringify(d))))].sort() })),
});

/**
 * A report with each module's diagnostics as a sorted set, each whole (message, file, line and
 * column): a failed build reports what a first build of the module says, whatever was built before.
 */
export const withSortedDiagnostics = (report: Report) => ({
  diagnostics: report.diagnostics,
  modules: report.modules.map((m) => ({ ...m, diagnostics: [...new Set(m.diagnostics.map((d) => JSON.stringify(d)))].sort() })),
});
