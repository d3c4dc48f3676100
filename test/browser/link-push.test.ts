// An open page told of a module made unable to link, or healed, by another module's edit (README
// "Preview and stylesheet push", "Bundling real code"): the page loads @p/a/app, which imports
// { x } from @p/b/lib; an edit of lib alone that drops x makes app invalid, and the page hears
// it (the overlay names the missing name); the edit that brings x back makes app valid again, and
// a page that failed to load app reloads by itself and runs it.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { eventsOpen, launchChromium, openPage, until, type Watched } from '../helpers/chromium.js';
import { serve } from '../helpers/service.js';
import { inlineWorkspace, writeFile } from '../helpers/workspace.js';

const LIB_FILE = 'packages/b/lib.ts';
const WITH_X = "export const x = 'x';\nexport const y = 'y';\n";
const WITHOUT_X = "export const y = 'y';\n";
const APP = '@p/a@1.0.0/app';

function workspace(): string {
  return inlineWorkspace(
    {
      'packages/b': { manifest: { name: '@p/b', version: '1.0.0', type: 'module', exports: { './lib': './lib.ts' } }, files: { 'lib.ts': WITH_X } },
      'packages/a': {
        manifest: { name: '@p/a', version: '1.0.0', type: 'module', exports: { './app': './app.ts' }, dependencies: { '@p/b': '1.0.0' } },
        files: { 'app.ts': "import { x } from '@p/b/lib';\ndocument.body.dataset.shown = x;\n" },
      },
    },
    { 'core.json': JSON.stringify({ packages: ['packages/b', 'packages/a'], preview: '@p/a/app' }) },
  );
}

describe('a page whose module another module’s edit makes unable to link, and heals', function () {
  let browser: Browser;
  let service: Awaited<ReturnType<typeof serve>>;
  let root: string;

  const overlayText = (watched: Watched) => watched.page.evaluate(() => document.querySelector('core-overlay')?.shadowRoot?.textContent ?? '');
  const appStatus = async () => ((await service.report()).modules.find((module) => module.specifier === '@p/a/app')?.status ?? 'absent');
  const opened = async (address: string) => {
    const watched = await openPage(browser);
    await watched.page.goto(new URL(address, service.url).href, { waitUntil: 'load' });
    await watched.page.waitForFunction(() => document.body.dataset.shown === 'x', undefined, { timeout: 20_000 });
    await eventsOpen(watched);
    return watched;
  };

  beforeEach(async function () {
    browser = await launchChromium();
    root = workspace();
    service = await serve(root);
  });
  afterEach(async function () {
    await browser?.close();
    await service?.close();
  });

  it('tells a page that runs on (reloading off) the importer invalid, with the name missing, then valid', async function () {
    const watched = await opened('/preview/?reload=false');
    writeFile(root, LIB_FILE, WITHOUT_X);
    await until(() => watched.messages.some((message) => message.module === APP && message.type === 'invalid'), 'an invalid message for the importer', 20_000);
    expect(await appStatus()).to.equal('invalid');
    await watched.page.waitForFunction(() => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes('does not export "x"'), undefined, { timeout: 20_000 });
    const told = watched.messages.length;
    writeFile(root, LIB_FILE, WITH_X);
    await until(() => watched.messages.slice(told).some((message) => message.module === APP && message.type === 'valid'), 'a valid message for the importer', 20_000);
    expect(await appStatus()).to.equal('valid');
    expect(await overlayText(watched)).to.not.include('does not export');
  });

  it('reloads a page that failed to load the importer by itself once the name is back, and it runs', async function () {
    const watched = await opened('/preview/');
    writeFile(root, LIB_FILE, WITHOUT_X);
    await watched.page.waitForFunction(() => document.querySelector('core-overlay')?.shadowRoot?.textContent?.includes('does not export "x"'), undefined, { timeout: 20_000 });
    expect(await appStatus()).to.equal('invalid');
    expect(await watched.page.evaluate(() => document.body.dataset.shown), 'reloaded into the failure').to.equal(undefined);
    await eventsOpen(watched);
    const navigations = watched.navigations();
    writeFile(root, LIB_FILE, WITH_X);
    await watched.page.waitForFunction(() => document.body.dataset.shown === 'x' && document.querySelector('core-overlay') === null, undefined, { timeout: 20_000 }).catch(async () => {
      throw new Error(`the page never ran app again; overlay: ${await overlayText(watched).catch(() => '?')}; told: ${JSON.stringify(watched.messages)}`);
    });
    expect(watched.navigations()).to.be.greaterThan(navigations);
    expect(await appStatus()).to.equal('valid');
  });
});
