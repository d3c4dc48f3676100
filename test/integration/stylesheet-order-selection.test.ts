// The stylesheet order of an entry's pages under a selection (README "Distribution: core dist",
// "Preview and stylesheet push"): `/preview/` and core dist's page link the sheets in the cascade,
// a CDN's (here a stylesheet module of a workspace package left out of development) at its place,
// where it is imported; the bundled preview too, before the part of its joined sheet that holds the
// development sheets after it. The entry imports the left-out package's sheet before the selected library.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { distribute } from '../../src/dist/distribute.js';
import { serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import { inlineWorkspace } from '../helpers/workspace.js';
import { installCore } from '../dist/installed.js';

const sheetsOf = (html: string): string[] => [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((match) => match[1]!.replace(/\?.*$/, ''));

function workspace(): string {
  return installCore(
    inlineWorkspace(
      {
        'packages/app': {
          manifest: { name: '@demo/app', version: '1.0.0', type: 'module', exports: { './main': './main.ts' }, dependencies: { '@demo/tokens': '1.0.0', '@demo/ui': '1.0.0' } },
          files: { 'main.ts': "import '@demo/tokens/light.css';\nimport '@demo/ui';\nexport const main = 1;\n" },
        },
        'packages/tokens': { manifest: { name: '@demo/tokens', version: '1.0.0', exports: { './light.css': './light.css' } }, files: { 'light.css': '.probe { color: rgb(1, 0, 0); }\n' } },
        'packages/ui': {
          manifest: { name: '@demo/ui', version: '1.0.0', type: 'module', exports: { '.': './index.ts' } },
          files: { 'index.ts': "import './index.css';\nexport const ui = 1;\n", 'index.css': '.probe { color: rgb(0, 2, 0); }\n' },
        },
      },
      {
        'core.json': JSON.stringify({ packages: ['packages/app', 'packages/tokens', 'packages/ui'], preview: '@demo/app/main' }),
        '.core/selection.json': JSON.stringify({ packages: ['@demo/app', '@demo/ui'] }),
      },
    ),
  );
}

describe('the stylesheet order of an entry\'s pages under a selection', function () {
  it("is the import order on /preview/, /preview/bundled/ and core dist's page", async function () {
    const root = workspace();
    const service = await serve(root, { cdnOrigin: 'https://cdn.test' });
    let preview: string;
    let bundled: string;
    try {
      preview = await waitFor(async () => {
        const html = (await service.get('/preview/')).text;
        return html.includes('data-core-styles=') && html;
      }, { what: "the library's sheet on /preview/" });
      bundled = (await service.get('/preview/bundled/')).text;
    } finally {
      await service.close();
    }
    expect(sheetsOf(preview)).to.deep.equal(['https://cdn.test/@demo/tokens@1.0.0/light.css', '/m/@demo/ui@1.0.0/styles/@root']);
    const bundledKinds = [...bundled.matchAll(/<link rel="stylesheet" [^>]*data-core-(styles|bundle|cdn-styles)=/g)].map((match) => match[1]);
    expect(bundledKinds).to.deep.equal(['cdn-styles', 'bundle']);

    const out = path.join(root, 'dist');
    const { page } = await distribute({ root, out });
    expect(page).to.deep.equal({ written: true, path: 'index.html', entry: '@demo/app/main' });
    expect(sheetsOf(fs.readFileSync(path.join(out, 'index.html'), 'utf8'))).to.deep.equal(['./@demo/tokens@1.0.0/styles/light.css.css', './@demo/ui@1.0.0/styles/@root.css']);
  });
});
