// What open pages are told, derived from successive states of the real store.
import { expect } from 'chai';
import type { Fact } from '../../src/store/events.js';
import { createStore } from '../../src/store/store.js';
import { moduleLabel, stylesAddress, type PushMessage } from '../../src/protocol/push.js';
import { invalidMessages, pushMessages$ } from '../../src/effects/push-messages.js';
import type { ImportRecord } from '../../src/workspace/checks.js';
import { diagnostic, type Diagnostic } from '../../src/workspace/diagnostics.js';
import type { ModuleModel } from '../../src/workspace/model.js';
import { DEVELOPMENT_QUERY } from '../../src/workspace/query.js';
import type { LinkNames } from '../../src/workspace/link-names.js';
import { effectsShimWarningText, type ShimFacts } from '../../src/workspace/shim-reads.js';
import { moduleModel, started, startedBuild, workspaceModel } from '../helpers/models.js';

const DEV = 'browser.development';
const one = moduleModel('one');
const LABEL = '@t/app@1.0.0/one';

// A store folding the facts it is given, and the messages pushMessages$ sent for them.
function harness(modules: ModuleModel[] = [one], workspace = workspaceModel(modules)) {
  const store = createStore({ now: () => new Date(0) });
  const messages: PushMessage[] = [];
  pushMessages$(store.state$).subscribe((message) => messages.push(message));
  store.dispatch(started);
  store.dispatch({ type: 'workspace.read', workspace });
  let build = 0;
  const generation = (module: ModuleModel) => store.getState().builds[module.specifier]!.variants[variantOf(module)]!.generation;
  const variantOf = (module: ModuleModel) => (module.platforms.includes('web') ? DEV : 'node.development');
  const run = (module: ModuleModel, result: (build: number) => Fact) => {
    build += 1;
    // An edit makes a built variant stale, as the watcher would report it.
    if (build > 1) store.dispatch({ type: 'files.changed', files: { [module.entry!]: `edit-${build}` }, source: 'watcher' });
    store.dispatch(startedBuild(build, variantOf(module), [{ module, generation: generation(module) }]));
    store.dispatch(result(build));
  };
  return {
    store,
    messages,
    /** A successful build with the given code and styles hashes. */
    built(code: string, styles: string | null, module = one, imports: ImportRecord[] = [], warnings: Diagnostic[] = [], chunks?: Record<string, string>, links?: LinkNames, shims?: ShimFacts) {
      const shared = chunks ? { chunks: Object.fromEntries(Object.entries(chunks).map(([specifier, hash]) => [specifier, { hash, size: 1 }])) } : {};
      run(module, (b) => ({
        type: 'build.succeeded',
        build: b,
        module: module.specifier,
        variant: variantOf(module),
        outputs: { code: { hash: code, size: 1 }, styles: styles === null ? null : { hash: styles, size: 1 }, ...shared },
        imports,
        inputs: { [module.entry!]: `edit-${b}` },
        ...(warnings.length > 0 ? { warnings } : {}),
        ...(links ? { links } : {}),
        ...(shims ? { shims } : {}),
      }));
    },
    /** A successful build that recorded `inputs` besides its entry's (a declared asset's hash). */
    builtWithInputs(code: string, styles: string | null, inputs: Record<string, string>, module = one) {
      run(module, (b) => ({
        type: 'build.succeeded',
        build: b,
        module: module.specifier,
        variant: variantOf(module),
        outputs: { code: { hash: code, size: 1 }, styles: styles === null ? null : { hash: styles, size: 1 } },
        imports: [],
        inputs: { [module.entry!]: `edit-${b}`, ...inputs },
      }));
    },
    failed(message: string, module = one) {
      run(module, (b) => ({ type: 'build.failed', build: b, module: module.specifier, variant: variantOf(module), errors: [diagnostic('BUNDLE_ERROR', message, { file: 'app/one/style.css' })], imports: [], inputs: { [module.entry!]: `edit-${b}` } }));
    },
  };
}

const styles = (hash: string) => ({ type: 'styles', module: LABEL, href: `/m/@t/app@1.0.0/styles/one?${DEVELOPMENT_QUERY}&v=${hash}` });

describe('pushMessages$', () => {
  it('says nothing about the first build a page could have loaded', () => {
    const { built, messages } = harness();
    built('code-1', 'styles-1');
    expect(messages).to.deep.equal([]);
  });

  it('announces a stylesheet rebuilt with new content, with a fresh token in its address', () => {
    const { built, messages } = harness();
    built('code-1', 'styles-1-abcdefghijklmnop');
    built('code-1', 'styles-2-abcdefghijklmnop');
    expect(messages).to.deep.equal([styles('styles-2-abcdefghijklmnop')]);
  });

  it('says nothing when a rebuild yields the same outputs', () => {
    const { built, messages } = harness();
    built('code-1', 'styles-1');
    built('code-1', 'styles-1');
    expect(messages).to.deep.equal([]);
  });

  it('announces changed code', () => {
    const { built, messages } = harness();
    built('code-1', 'styles-1');
    built('code-2', 'styles-1');
    expect(messages).to.deep.equal([{ type: 'code', module: LABEL }]);
  });

  it('announces changed code when only a shared file it imports changed', () => {
    const { built, messages } = harness();
    built('code-1', 'styles-1', one, [], [], { '@t/app/.shared/registry.ts': 'chunk-1' });
    built('code-1', 'styles-1', one, [], [], { '@t/app/.shared/registry.ts': 'chunk-1' });
    expect(messages).to.deep.equal([]);
    built('code-1', 'styles-1', one, [], [], { '@t/app/.shared/registry.ts': 'chunk-2' });
    expect(messages).to.deep.equal([{ type: 'code', module: LABEL }]);
  });

  it("announces a declared asset saved with new content at its plain address, after what its outputs tell, and nothing for the same bytes saved again (README \"Preview and stylesheet push\")", () => {
    const withAssets = moduleModel('one', { assets: ['logo.svg', 'img/a b.svg', 'unread.svg'] });
    const { builtWithInputs, messages } = harness([withAssets]);
    const asset = (file: string) => ({ type: 'asset', module: LABEL, href: `/m/@t/app@1.0.0/assets/one/${file}` });
    builtWithInputs('code-1', 'styles-1', { 'app/one/logo.svg': 'logo-1', 'app/one/img/a b.svg': 'ab-1' }, withAssets);
    expect(messages).to.deep.equal([]);
    // Outputs unchanged (an address in a plain string): the asset message alone.
    builtWithInputs('code-1', 'styles-1', { 'app/one/logo.svg': 'logo-2', 'app/one/img/a b.svg': 'ab-1' }, withAssets);
    expect(messages).to.deep.equal([asset('logo.svg')]);
    // The same bytes again: nothing.
    builtWithInputs('code-1', 'styles-1', { 'app/one/logo.svg': 'logo-2', 'app/one/img/a b.svg': 'ab-1' }, withAssets);
    expect(messages).to.deep.equal([asset('logo.svg')]);
    // A versioned form changed the sheet too: its message first, then the asset's, its path escaped.
    builtWithInputs('code-1', 'styles-2', { 'app/one/logo.svg': 'logo-2', 'app/one/img/a b.svg': 'ab-2' }, withAssets);
    expect(messages.slice(1)).to.deep.equal([styles('styles-2'), asset('img/a%20b.svg')]);
    // A hash not verified yet (a write during the build) tells nothing until it is, then what changed since the last told.
    builtWithInputs('code-1', 'styles-2', { 'app/one/logo.svg': '?', 'app/one/img/a b.svg': 'ab-2' }, withAssets);
    expect(messages).to.have.length(3);
    builtWithInputs('code-1', 'styles-2', { 'app/one/logo.svg': 'logo-2', 'app/one/img/a b.svg': 'ab-2' }, withAssets);
    expect(messages).to.have.length(3);
    builtWithInputs('code-1', 'styles-2', { 'app/one/logo.svg': '?', 'app/one/img/a b.svg': 'ab-2' }, withAssets);
    builtWithInputs('code-1', 'styles-2', { 'app/one/logo.svg': 'logo-3', 'app/one/img/a b.svg': 'ab-2' }, withAssets);
    expect(messages.slice(3)).to.deep.equal([asset('logo.svg')]);
    // An asset first recorded now (declared, or built, since the page was served) tells nothing.
    builtWithInputs('code-1', 'styles-2', { 'app/one/logo.svg': 'logo-3', 'app/one/img/a b.svg': 'ab-2', 'app/one/unread.svg': 'unread-1' }, withAssets);
    expect(messages).to.have.length(4);
  });

  it('announces a declared asset changed while its module was invalid once it builds again, after `valid`', () => {
    const withAssets = moduleModel('one', { assets: ['logo.svg'] });
    const { builtWithInputs, failed, messages } = harness([withAssets]);
    builtWithInputs('code-1', null, { 'app/one/logo.svg': 'logo-1' }, withAssets);
    failed('Could not resolve "./missing.css"', withAssets);
    builtWithInputs('code-1', null, { 'app/one/logo.svg': 'logo-2' }, withAssets);
    expect(messages.map((message) => message.type)).to.deep.equal(['invalid', 'valid', 'asset']);
  });

  it('announces a build that became invalid once, with its diagnostics', () => {
    const { built, failed, messages } = harness();
    built('code-1', 'styles-1');
    failed('Could not resolve "./missing.css"');
    failed('Could not resolve "./missing.css"');
    expect(messages).to.deep.equal([{ type: 'invalid', module: LABEL, diagnostics: [diagnostic('BUNDLE_ERROR', 'Could not resolve "./missing.css"', { file: 'app/one/style.css' })] }]);
  });

  it('announces a module rebuilt to import a name the module it imports does not export as invalid, not as changed code (README "Bundling real code")', () => {
    const two = moduleModel('two');
    const { built, messages } = harness([one, two]);
    const imports = [{ specifier: two.specifier, file: 'app/one/index.ts', line: 1, column: 1 }];
    built('two-1', null, two, [], [], undefined, { exports: ['a'] });
    built('code-1', null, one, imports, [], undefined, { exports: [], imports: [{ specifier: two.specifier, names: ['a'] }] });
    built('code-2', null, one, imports, [], undefined, { exports: [], imports: [{ specifier: two.specifier, names: ['a', 'b'] }] });
    expect(messages.map((message) => message.type)).to.deep.equal(['invalid']);
    expect((messages[0] as Extract<PushMessage, { type: 'invalid' }>).diagnostics.map((d) => d.message).join()).to.include(`${two.specifier} does not export "b"`);
  });

  it("tells an importer invalid when the module it imports is rebuilt without a name it imports, valid once the name is back, with no build of its own, and nothing while that module builds (README \"Preview and stylesheet push\")", () => {
    const two = moduleModel('two');
    const { store, built, messages } = harness([one, two]);
    const imports = [{ specifier: two.specifier, file: 'app/one/index.ts', line: 1, column: 1 }];
    const twoLinks = (exports: string[]): LinkNames => ({ exports });
    // What the importer is told (the module it imports is told `code` for its own edits).
    const told = () => messages.filter((message) => 'module' in message && message.module === LABEL);
    built('two-1', null, two, [], [], undefined, twoLinks(['a']));
    built('code-1', null, one, imports, [], undefined, { exports: [], imports: [{ specifier: two.specifier, names: ['a'] }] });
    built('two-2', null, two, [], [], undefined, twoLinks([]));
    expect(told().map((message) => message.type)).to.deep.equal(['invalid']);
    expect((told()[0] as Extract<PushMessage, { type: 'invalid' }>).diagnostics.map((d) => d.message).join()).to.include(`${two.specifier} does not export "a"`);
    // Its build begun: the names it will export are not known yet, and the importer is told nothing.
    store.dispatch({ type: 'files.changed', files: { [two.entry!]: 'edit-again' }, source: 'watcher' });
    store.dispatch(startedBuild(90, DEV, [{ module: two, generation: store.getState().builds[two.specifier]!.variants[DEV]!.generation }]));
    expect(told()).to.have.length(1);
    built('two-3', null, two, [], [], undefined, twoLinks(['a']));
    expect(told().slice(1)).to.deep.equal([{ type: 'valid', module: LABEL }]);
  });

  it('tells an importer reading a Node global after an import for effects invalid when the module imported is rebuilt writing no such name, valid once it writes it again, with no build of its own (README "Bundling real code", Shims)', () => {
    const two = moduleModel('two');
    const { built, messages } = harness([one, two]);
    const warning = diagnostic('BUNDLE_WARNING', effectsShimWarningText('process.env.X', 'process', two.specifier, 'the remedy'), { file: 'app/one/index.ts', line: 2, column: 1 });
    const told = () => messages.filter((message) => 'module' in message && message.module === LABEL);
    built('two-1', null, two, [], [], undefined, undefined, { writes: ['process'], effects: [] });
    built('code-1', null, one, [], [warning], undefined, undefined, { writes: [], effects: [two.specifier] });
    built('two-2', null, two, [], [], undefined, undefined, { writes: [], effects: [] });
    expect(told().map((message) => message.type)).to.deep.equal(['invalid']);
    expect((told()[0] as Extract<PushMessage, { type: 'invalid' }>).diagnostics.map((d) => d.message).join()).to.include(`no module it imports for its effects writes process`);
    built('two-3', null, two, [], [], undefined, undefined, { writes: ['process'], effects: [] });
    expect(told().slice(1)).to.deep.equal([{ type: 'valid', module: LABEL }]);
  });

  it('tells an importer invalid when a module it reaches through whole re-exports drops the name, valid when it is back, and nothing for a module it does not import', () => {
    const index = moduleModel('index');
    const lib = moduleModel('lib');
    const other = moduleModel('other');
    const { built, messages } = harness([one, index, lib, other]);
    const imports = [{ specifier: index.specifier, file: 'app/one/index.ts', line: 1, column: 1 }];
    built('lib-1', null, lib, [], [], undefined, { exports: ['x'] });
    built('index-1', null, index, [], [], undefined, { exports: [], stars: [lib.specifier] });
    built('other-1', null, other, [], [], undefined, { exports: ['x'] });
    built('code-1', null, one, imports, [], undefined, { exports: [], imports: [{ specifier: index.specifier, names: ['x'] }] });
    const told = () => messages.filter((message) => 'module' in message && message.module === LABEL);
    built('other-2', null, other, [], [], undefined, { exports: [] });
    expect(told(), 'a module it does not import').to.deep.equal([]);
    built('lib-2', null, lib, [], [], undefined, { exports: [] });
    expect(told().map((message) => message.type)).to.deep.equal(['invalid']);
    built('lib-3', null, lib, [], [], undefined, { exports: ['x'] });
    expect(told().slice(1)).to.deep.equal([{ type: 'valid', module: LABEL }]);
  });

  it('still tells the code changes of an importer whose name passes through a whole re-export of a module no judgement reads (a package the CDN serves)', () => {
    const index = moduleModel('index');
    const { built, messages } = harness([one, index]);
    const imports = [{ specifier: index.specifier, file: 'app/one/index.ts', line: 1, column: 1 }];
    const links: LinkNames = { exports: [], imports: [{ specifier: index.specifier, names: ['html'] }] };
    built('index-1', null, index, [], [], undefined, { exports: [], stars: ['lit'] });
    built('code-1', null, one, imports, [], undefined, links);
    built('code-2', null, one, imports, [], undefined, links);
    expect(messages).to.deep.equal([{ type: 'code', module: LABEL }]);
  });

  it('announces new diagnostics of a module that stays invalid', () => {
    const { built, failed, messages } = harness();
    built('code-1', 'styles-1');
    failed('first');
    failed('second');
    expect(messages.map((m) => (m.type === 'invalid' ? m.diagnostics[0]!.message : m.type))).to.deep.equal(['first', 'second']);
  });

  it('says valid after a fix that restores the last good outputs, and nothing else', () => {
    const { built, failed, messages } = harness();
    built('code-1', 'styles-1');
    failed('broken');
    built('code-1', 'styles-1');
    expect(messages.slice(1)).to.deep.equal([{ type: 'valid', module: LABEL }]);
  });

  it('says valid after a fix, then what changed against the last good outputs', () => {
    const { built, failed, messages } = harness();
    built('code-1', 'styles-1');
    failed('broken');
    built('code-1', 'styles-2');
    expect(messages.slice(1)).to.deep.equal([{ type: 'valid', module: LABEL }, styles('styles-2')]);
  });

  it('announces a module invalid when a new workspace model fails its imports, without a build', () => {
    const declared = workspaceModel([one]);
    declared.packages[0]!.dependencies = { lit: '3.1.0' };
    const { store, built, messages } = harness([one], declared);
    built('code-1', null, one, [{ specifier: 'lit', file: 'app/one/index.ts' }]);
    store.dispatch({ type: 'workspace.read', workspace: workspaceModel([one]) });
    expect(messages).to.have.length(1);
    expect(messages[0]).to.deep.include({ type: 'invalid', module: LABEL });
    expect((messages[0] as Extract<PushMessage, { type: 'invalid' }>).diagnostics.map((d) => d.kind)).to.deep.equal(['DEPENDENCY_NOT_DECLARED']);
  });

  it('announces a module whose own manifest became wrong (a declared asset deleted) as invalid with its diagnostics, without a build, and valid once fixed', () => {
    const { store, built, messages } = harness();
    built('code-1', 'styles-1');
    const missing = diagnostic('MANIFEST_INVALID', 'app/one/module.json: "assets" declares "logo.svg", but app/one/logo.svg does not exist', { file: 'app/one/module.json' });
    const wrong = { ...one, diagnostics: [missing] };
    store.dispatch({ type: 'workspace.read', workspace: workspaceModel([wrong]) });
    expect(messages).to.deep.equal([{ type: 'invalid', module: LABEL, diagnostics: [missing] }]);
    // What a page that connects now hears, as /state says.
    expect(invalidMessages(store.getState())).to.deep.equal([{ type: 'invalid', module: LABEL, diagnostics: [missing] }]);
    store.dispatch({ type: 'workspace.read', workspace: workspaceModel([one]) });
    built('code-1', 'styles-1');
    expect(messages.slice(1)).to.deep.equal([{ type: 'valid', module: LABEL }]);
  });

  it('announces a module that gains or loses a stylesheet as a code change, before its sheet: the page reloads to link it', () => {
    const { built, messages } = harness();
    built('code-1', null);
    built('code-1', 'styles-1');
    built('code-1', null);
    // The code change first: a page that reloads swaps no sheet into the page it leaves.
    expect(messages).to.deep.equal([{ type: 'code', module: LABEL }, styles('styles-1'), { type: 'code', module: LABEL }]);
  });

  it('announces the warnings of a module when they change, and none once they are gone', () => {
    const { built, messages } = harness();
    const warning = diagnostic('BUNDLE_WARNING', 'Comparison using the "===" operator here is always false', { file: 'app/one/index.ts', line: 2, column: 5 });
    built('code-1', 'styles-1');
    built('code-2', 'styles-1', one, [], [warning]);
    built('code-3', 'styles-1', one, [], [warning]);
    built('code-4', 'styles-1');
    expect(messages.filter((m) => m.type === 'warnings')).to.deep.equal([
      { type: 'warnings', module: LABEL, warnings: [warning] },
      { type: 'warnings', module: LABEL, warnings: [] },
    ]);
  });

  it('keeps the last good stylesheet while it has a CSS syntax problem, and announces the fixed one after its warnings are gone', () => {
    const { built, messages } = harness();
    const syntax = { ...diagnostic('CSS_SYNTAX', 'Expected "}" to go with "{"', { file: 'app/one/style.css', line: 3, column: 1 }), frame: '2 | a {\n  | ^' };
    built('code-1', 'styles-1');
    built('code-1', 'styles-2', one, [], [syntax]);
    expect(messages).to.deep.equal([{ type: 'warnings', module: LABEL, warnings: [syntax] }]);
    built('code-1', 'styles-3');
    expect(messages.slice(1)).to.deep.equal([{ type: 'warnings', module: LABEL, warnings: [] }, styles('styles-3')]);
  });

  it('announces a new version of a module as a code change under the label pages loaded it by, then goes on under the new one', () => {
    const { store, built, messages } = harness();
    built('code-1', 'styles-1');
    // package.json bumped: the same build, at new addresses.
    const bumped = { ...one, version: '1.1.0' };
    store.dispatch({ type: 'workspace.read', workspace: workspaceModel([bumped]) });
    expect(messages).to.deep.equal([{ type: 'code', module: LABEL }]);
    built('code-2', 'styles-1', bumped);
    expect(messages.slice(1)).to.deep.equal([{ type: 'code', module: '@t/app@1.1.0/one' }]);
  });

  it("announces the workspace's own diagnostics when they change, and none once they are gone", () => {
    const { store, built, messages } = harness();
    built('code-1', 'styles-1');
    const broken = diagnostic('MANIFEST_INVALID', 'app/package.json is not valid JSON', { file: 'app/package.json', line: 1, column: 2 });
    store.dispatch({ type: 'workspace.read', workspace: workspaceModel([one], { diagnostics: [broken] }) });
    store.dispatch({ type: 'workspace.read', workspace: workspaceModel([one], { diagnostics: [broken] }) });
    store.dispatch({ type: 'workspace.read', workspace: workspaceModel([one]) });
    expect(messages).to.deep.equal([
      { type: 'workspace', diagnostics: [broken] },
      { type: 'workspace', diagnostics: [] },
    ]);
  });

  it('tells the workspace when the modules a preview entry can name change (one declared), not when it is read again the same', () => {
    const { store, built, messages } = harness();
    built('code-1', 'styles-1');
    const about = moduleModel('about');
    store.dispatch({ type: 'workspace.read', workspace: workspaceModel([one]) });
    expect(messages, 'read again, the same modules').to.deep.equal([]);
    store.dispatch({ type: 'workspace.read', workspace: workspaceModel([one, about]) });
    expect(messages).to.deep.equal([{ type: 'workspace', diagnostics: [] }]);
  });

  it('ignores node-only modules', () => {
    const server = moduleModel('server', { platforms: ['node'] });
    const { built, failed, messages } = harness([server]);
    built('code-1', 'styles-1', server);
    built('code-2', 'styles-2', server);
    failed('broken', server);
    expect(messages).to.deep.equal([]);
  });

  it('completes when the states end', () => {
    const store = createStore();
    let done = false;
    pushMessages$(store.state$).subscribe({ complete: () => (done = true) });
    store.complete();
    expect(done).to.equal(true);
  });
});

describe('moduleLabel', () => {
  it('names a module as pages do: <package>@<version>/<subpath>', () => {
    expect(moduleLabel(moduleModel('widgets/badge'))).to.equal('@t/app@1.0.0/widgets/badge');
  });
});

describe('stylesAddress', () => {
  it('is the development styles address of the module', () => {
    expect(stylesAddress(moduleModel('widgets/badge'))).to.equal(`/m/@t/app@1.0.0/styles/widgets/badge?${DEVELOPMENT_QUERY}`);
  });
});
