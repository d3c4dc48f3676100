// The build dashboard: `GET /` for a browser (a request whose Accept names text/html), its
// bundled files under `/dashboard/`, and `GET /state/details`, the JSON it shows beside
// `/state`. Part of the core service: it shows what `/state` and `/log` serve, behind the
// same Host guard and without CORS headers. Other clients of `/` get OUTPUT_NOT_AVAILABLE.
import type { BuildHistory } from '../../store/build-history.js';
import type { HttpContext } from '../context.js';
import { readClientFiles, type ClientFileName } from '../../dashboard/client-files.js';
import { selectDetails } from '../../dashboard/details.js';
import { DASHBOARD_CSP, renderDashboardPage } from '../../dashboard/page.js';
import { selectReport } from '../../store/selectors.js';
import { sourceFrames } from '../../io/source-frames.js';
import { ServiceError } from '../errors.js';
import type { Readiness } from '../readiness.js';
import { sendOutput } from '../send-output.js';
import { wantsHtml } from '../wants-html.js';

export interface DashboardDeps {
  root: string;
  readiness: Readiness;
  history: BuildHistory;
  cdnOrigin: string | null;
  /** The preview's address while an extension serves it (the dashboard links it), else null. */
  previewAddress(): string | null;
}

export function dashboardRoutes(deps: DashboardDeps) {
  let files: ReturnType<typeof readClientFiles> | undefined;
  const client = () => {
    files ??= readClientFiles();
    if (!files) throw new ServiceError('INTERNAL_ERROR', 'the dashboard was not built: run `npm run build` in the package');
    return files;
  };
  const address = (name: ClientFileName) => `/dashboard/${name}?v=${client().get(name)!.hash.slice(0, 12)}`;

  return {
    page: async function dashboardPage(ctx: HttpContext, next: () => Promise<unknown>) {
      // Only a browser navigation: JSON and event-stream clients keep the 404 they had.
      if (!wantsHtml(ctx)) return next();
      const html = renderDashboardPage(address('dashboard.js'), address('dashboard.css'), deps.previewAddress());
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Content-Security-Policy', DASHBOARD_CSP);
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.set('Vary', 'Accept');
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = html;
    },
    file: function dashboardFile(ctx: HttpContext, next: () => Promise<unknown>) {
      const file = client().get(ctx.params.file as ClientFileName);
      if (!file) return next();
      sendOutput(ctx, file.body, { type: file.type, hash: file.hash, anyOrigin: false });
    },
    details: async function stateDetails(ctx: HttpContext) {
      const state = await deps.readiness.settled();
      ctx.set('Cache-Control', 'no-store');
      ctx.type = 'application/json; charset=utf-8';
      const details = selectDetails(state, deps.history, deps.cdnOrigin);
      const report = selectReport(state);
      // By the rule of every frame (README "Code frames"): only from a file the build or the read that
      // reported the diagnostic read, while it holds what was read.
      const places = [...report.diagnostics.map((diagnostic) => ({ module: null, diagnostic })), ...report.modules.flatMap((module) => module.diagnostics.map((diagnostic) => ({ module: module.specifier, diagnostic })))];
      const frames = sourceFrames(deps.root, state, places);
      ctx.body = JSON.stringify({ ...details, frames });
    },
  };
}
