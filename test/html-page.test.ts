// The shell of every HTML page (src/html-page.ts): one head for the dashboard, the preview and
// `core dist`'s page, with an empty icon so that no page load asks for /favicon.ico.
import { expect } from 'chai';
import { renderDashboardPage } from '../src/dashboard/page.js';
import { escapeHtml, htmlPage, importMapScript } from '../src/html-page.js';

const HEAD = '<!doctype html>\n<html lang="en">\n  <head>\n    <meta charset="utf-8">\n    <meta name="viewport" content="width=device-width, initial-scale=1">\n    <link rel="icon" href="data:,">\n';

describe('htmlPage', () => {
  it('writes the one head, the title escaped, then the lines given, and the body', () => {
    const page = htmlPage('<a> & "b"', ['    <meta name="x">'], '<p>hi</p>');
    expect(page.startsWith(HEAD)).to.equal(true);
    expect(page).to.include('<title>&lt;a&gt; &amp; &quot;b&quot;</title>\n    <meta name="x">\n  </head>\n  <body><p>hi</p></body>\n</html>\n');
  });

  it('writes an import map that no value can close', () => {
    const script = importMapScript({ imports: { a: '</script><script>' } });
    expect(script).to.include('\\u003c/script\\u003e');
    expect(script).to.not.include('"</script><script>"');
  });

  it('is the dashboard\'s shell too, the preview address escaped', () => {
    const page = renderDashboardPage('/dashboard/a.js', '/dashboard/a.css', '/preview/?x="1"&y');
    expect(page.startsWith(HEAD)).to.equal(true);
    expect(page).to.include(`data-preview="${escapeHtml('/preview/?x="1"&y')}"`);
  });
});
