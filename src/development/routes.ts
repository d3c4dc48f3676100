// `/preview/`, `/preview/entry.json` and the runtime under `/u/`.
import fs from 'node:fs';
import type { HttpContext } from '../http/context.js';
import type { ExtensionHost } from '../extension.js';
import { ServiceError } from '../http/errors.js';
import { sendOutput } from '../http/send-output.js';
import { contentHash } from '../outputs/content-hash.js';
import { createInstalledVersions } from './installed-version.js';
import { renderPreviewPage } from './preview-page.js';
import { derivePreview, type Preview } from './preview.js';

// Compiled beside this file in dist/; from the TypeScript sources (tests), in dist/ too.
const RUNTIME_FILES = [new URL('./runtime/runtime.js', import.meta.url), new URL('../../dist/development/runtime/runtime.js', import.meta.url)];
const RUNTIME_FILE = RUNTIME_FILES.find((file) => fs.existsSync(file)) ?? RUNTIME_FILES[0]!;

export function registerPreviewRoutes(host: ExtensionHost): void {
  const installedVersion = createInstalledVersions(host.root);
  const runtime = Buffer.from(fs.readFileSync(RUNTIME_FILE, 'utf8').replace(/^\/\/# sourceMappingURL=.*$/m, ''));
  const runtimeHash = contentHash(runtime);
  const runtimeAddress = `/u/runtime.js?v=${runtimeHash.slice(0, 12)}`;

  async function preview(ctx: HttpContext): Promise<Preview> {
    if (!host.cdnOrigin) {
      throw new ServiceError('PREVIEW_CDN_UNSET', 'the preview needs CORE_CDN_ORIGIN (the origin serving packages not in development): start the service again with it set, for example CORE_CDN_ORIGIN=https://esm.sh');
    }
    const entry = typeof ctx.query.entry === 'string' && ctx.query.entry !== '' ? ctx.query.entry : undefined;
    const state = await host.readiness.settled();
    const result = derivePreview(state, { entry, cdnOrigin: host.cdnOrigin, installedVersion });
    if (!result.ok) throw new ServiceError(result.reason === 'not-web' ? 'CONDITIONAL_NOT_FOUND' : 'OUTPUT_NOT_AVAILABLE', result.message);
    return result.preview;
  }

  host.router.get('/preview', (ctx) => {
    ctx.redirect(`/preview/${ctx.querystring ? `?${ctx.querystring}` : ''}`);
  });
  host.router.get('/preview/', async (ctx) => {
    const page = renderPreviewPage(await preview(ctx), runtimeAddress);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  });
  host.router.get('/preview/entry.json', async (ctx) => {
    const body = JSON.stringify(await preview(ctx), null, 2);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = body;
  });
  host.router.get('/u/runtime.js', (ctx) => {
    sendOutput(ctx, runtime, { type: 'text/javascript; charset=utf-8', hash: runtimeHash, anyOrigin: false });
  });
}
