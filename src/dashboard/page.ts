// The dashboard's HTML: a shell with no inline script or style (its Content-Security-Policy
// is `default-src 'self'`); everything it shows is drawn by the bundled client.
import { escapeHtml, htmlPage } from '../html-page.js';

export const DASHBOARD_CSP = "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** `previewAddress`: where the preview is served, when the development extension serves one. */
export function renderDashboardPage(scriptAddress: string, styleAddress: string, previewAddress: string | null = null): string {
  return htmlPage('core · build dashboard', [
    '    <meta name="color-scheme" content="light dark">',
    `    <link rel="stylesheet" href="${escapeHtml(styleAddress)}">`,
    `    <script type="module" src="${escapeHtml(scriptAddress)}"></script>`,
  ], `
<core-dashboard${previewAddress ? ` data-preview="${escapeHtml(previewAddress)}"` : ''}></core-dashboard>
<noscript>The dashboard needs JavaScript; the same data is at <a href="/state">/state</a> and <a href="/log">/log</a>.</noscript>
`);
}
