// The dashboard's HTML: a shell with no inline script or style (its Content-Security-Policy
// is `default-src 'self'`); everything it shows is drawn by the bundled client.
export const DASHBOARD_CSP = "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** `previewAddress`: where the preview is served, when the development extension serves one. */
export function renderDashboardPage(scriptAddress: string, styleAddress: string, previewAddress: string | null = null): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>core · build dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${styleAddress}">
<script type="module" src="${scriptAddress}"></script>
</head>
<body>
<core-dashboard${previewAddress ? ` data-preview="${previewAddress.replace(/[&"<>]/g, '')}"` : ''}></core-dashboard>
<noscript>The dashboard needs JavaScript; the same data is at <a href="/state">/state</a> and <a href="/log">/log</a>.</noscript>
</body>
</html>
`;
}
