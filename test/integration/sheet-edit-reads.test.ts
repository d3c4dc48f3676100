// One stylesheet edit, from the disk to the page (ARCHITECTURE.md), on a
// real service and a real disk: the sheet is read once between the save and the push, the
// tsconfig chain and the code that imports a package not at all (neither changed), the
// store records three facts, and the pushed address's answer is kept as the push goes out.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import { readText, write } from '../helpers/edit.js';
import { DEV, fixtureWorkspace } from '../helpers/fixtures.js';
import { awaitedWalk, serve } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import type { CoreEvent } from '../../src/store/events.js';
import { RACY_MS } from '../../src/io/file-hashes.js';
import { spyOnFileReads } from '../helpers/file-reads-spy.js';

const SHEET = 'packages/app/main/styles.css';
const CODE = 'packages/app/main/index.ts';
const TSCONFIGS = ['packages/app/tsconfig.json', 'tsconfig.base.json'];
const MAIN = '@acme/app@1.0.0/main';
/** Beyond the racy window, for a clock read a little late. */
const QUIET_MARGIN_MS = 100;

/** Every `fs` read of a file inside `root` while `run` runs, by workspace path. */
async function readsDuring(root: string, run: () => Promise<void>): Promise<string[]> {
  const read: string[] = [];
  const note = (file: unknown) => {
    if (typeof file !== 'string') return;
    const absolute = path.resolve(file);
    if (absolute.startsWith(root + path.sep)) read.push(path.relative(root, absolute).split(path.sep).join('/'));
  };
  const originals = { readFile: fs.readFile, promisesReadFile: fs.promises.readFile };
  const restoreSyncReads = spyOnFileReads(note);
  fs.readFile = ((file: unknown, ...rest: unknown[]) => (note(file), (originals.readFile as (...args: unknown[]) => unknown)(file, ...rest))) as typeof fs.readFile;
  fs.promises.readFile = ((file: unknown, ...rest: unknown[]) => (note(file), (originals.promisesReadFile as (...args: unknown[]) => unknown)(file, ...rest))) as typeof fs.promises.readFile;
  try {
    await run();
  } finally {
    restoreSyncReads();
    Object.assign(fs, { readFile: originals.readFile });
    Object.assign(fs.promises, { readFile: originals.promisesReadFile });
  }
  return read;
}

describe('one stylesheet edit', function () {
  it('reads the sheet once before its push, and neither the tsconfig chain nor the code', async function () {
    const root = fixtureWorkspace('basic', {
      'tsconfig.base.json': JSON.stringify({ compilerOptions: { target: 'es2022' } }),
      'packages/app/tsconfig.json': JSON.stringify({ extends: '../../tsconfig.base.json' }),
    });
    // A file stamped within RACY_MS of its last change (its ctime) is racy, and rightly read
    // again by a later look (README "Addresses"): the files this edit leaves alone are made older
    // than that before the service first looks at them (in the whole suite it starts at once).
    const youngest = Math.max(...[...TSCONFIGS, CODE].map((file) => fs.statSync(path.join(root, file)).ctimeMs));
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, youngest + RACY_MS + QUIET_MARGIN_MS - Date.now())));
    const walk = awaitedWalk();
    const ready = walk.walked;
    const service = await serve(root, {
      // The watcher looks at a saved file once more a little later (README "Addresses"): a
      // read racy by then is read again, after the push this test counts up to.
      effectDeps: (deps) => ({ ...walk.deps(deps), settleMs: 600_000 }),
    });
    const { store } = service.internals;
    const events: CoreEvent[] = [];
    let changes = 0;
    const recording = store.events$.subscribe((event) => events.push(event));
    recording.add(store.state$.subscribe(() => (changes += 1)));
    let socket: WebSocket | undefined;
    try {
      expect((await service.get(`/m/@acme/app@1.0.0/styles/main?${DEV}`)).status).to.equal(200);
      await ready;
      socket = new WebSocket(service.url.replace(/^http/, 'ws').replace(/\/$/, '/events'));
      await new Promise((resolve, reject) => socket!.once('open', resolve).once('error', reject));
      const pushed: { type: string; module: string; href?: string }[] = [];
      socket.on('message', (data) => pushed.push(JSON.parse(String(data))));
      // The first edit is built in the module's kept esbuild context, the second by the stylesheet alone.
      for (const color of ['rgb(4, 5, 6)', 'rgb(7, 8, 9)']) {
        const before = pushed.length;
        events.length = 0;
        changes = 0;
        const text = readText(root, SHEET).replace(/rgb\([^)]*\)/, color);
        const reads = await readsDuring(root, async () => {
          write(root, SHEET, text);
          await waitFor(() => pushed.slice(before).some((message) => message.type === 'styles' && message.module === MAIN), { what: `the push of ${color}` });
        });
        expect(reads.filter((file) => file === SHEET), `reads of the sheet for ${color}`).to.have.length(1);
        expect(reads.filter((file) => TSCONFIGS.includes(file)), 'reads of the tsconfig chain').to.deep.equal([]);
        expect(reads.filter((file) => file === CODE), 'reads of the code').to.deep.equal([]);
        expect(events.map((event) => event.type), 'facts recorded').to.deep.equal(['files.changed', 'build.started', 'build.succeeded']);
        expect(changes, 'store round trips').to.equal(3);
        const href = pushed.slice(before).find((message) => message.type === 'styles')!.href!;
        // The push carried what the answer needs: it is kept before the page asks, not parsed back from the address.
        expect(service.internals.answers.holds(href), 'the pushed address answered before it is asked').to.equal(true);
        expect((await service.get(href)).text).to.include(color);
      }
    } finally {
      recording.unsubscribe();
      socket?.close();
      await service.close();
    }
  });
});
