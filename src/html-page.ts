// The shell of every HTML page the service serves or `core dist` writes (the dashboard, the
// preview, the page of a distribution): the same head, with an empty icon so that a browser
// asks no `/favicon.ico` (which would answer 404 on every load), and the escaping of what
// goes into it.
export const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
// JSON inside <script> must not close the element or open a comment.
export const scriptJson = (value: unknown) => JSON.stringify(value, null, 2).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');

/** The import map of a page, a line of its head. */
export const importMapScript = (importMap: unknown): string => `    <script type="importmap">\n${scriptJson(importMap)}\n    </script>`;

/** A page titled `title` (escaped here), with the lines `head` (already escaped) in its head and `body` (already escaped). */
export function htmlPage(title: string, head: readonly string[], body = ''): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <link rel="icon" href="data:,">
    <title>${escapeHtml(title)}</title>
${head.join('\n')}
  </head>
  <body>${body}</body>
</html>
`;
}
