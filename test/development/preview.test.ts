// The preview derived once per state (src/development/preview.ts `createPreviewDeriver`): the same
// state answers the same preview while the installed versions it asked for are the same.
import { expect } from 'chai';
import { createPreviewDeriver } from '../../src/development/preview.js';
import { defaultVariantKey } from '../../src/store/selectors.js';
import { fold, moduleModel, started, startedBuild, succeeded, workspaceModel } from '../helpers/models.js';

describe('createPreviewDeriver', () => {
  const main = moduleModel('main');
  const workspace = workspaceModel([main], { packages: [{ name: '@t/app', version: '1.0.0', dir: 'app', dependencies: { lit: '^3.0.0' } }] });
  // main imports lit, which its package declares by a range: the installed copy decides the version.
  const state = fold([
    started,
    { type: 'workspace.read', workspace },
    startedBuild(1, defaultVariantKey(main), [{ module: main, generation: 1 }]),
    succeeded(1, main, defaultVariantKey(main), 'entry-1', { imports: [{ specifier: 'lit', file: main.entry! }] }),
  ]);
  const options = { cdnOrigin: 'https://cdn.test' };

  it('answers the preview derived from the same state again, asking the installed versions again', () => {
    const asked: string[] = [];
    const derive = createPreviewDeriver((name) => (asked.push(name), { version: '3.0.0' }));
    const first = derive(state, options);
    expect(first.ok && first.preview.imports.lit).to.equal('https://cdn.test/lit@3.0.0');
    expect(derive(state, options)).to.equal(first);
    expect(asked).to.deep.equal(['lit', 'lit']);
  });

  it('derives again when an installed version it asked for is another now, or for another state, entry or origin', () => {
    let installed = '3.0.0';
    const derive = createPreviewDeriver(() => ({ version: installed }));
    const first = derive(state, options);
    installed = '3.1.0';
    const next = derive(state, options);
    expect(next).to.not.equal(first);
    expect(next.ok && next.preview.imports.lit).to.equal('https://cdn.test/lit@3.1.0');
    expect(derive({ ...state }, options)).to.not.equal(next);
    expect(derive(state, { cdnOrigin: 'https://other.test' })).to.not.equal(next);
    expect(derive(state, { ...options, entry: main.specifier })).to.not.equal(next);
  });

  it('keeps no refused preview: an entry the workspace does not have is derived again each time', () => {
    const derive = createPreviewDeriver(() => ({ version: '3.0.0' }));
    const refused = derive(state, { ...options, entry: '@t/app/none' });
    expect(refused.ok).to.equal(false);
    expect(derive(state, { ...options, entry: '@t/app/none' })).to.not.equal(refused);
    expect(derive(state, { ...options, entry: '@t/app/none' })).to.deep.equal(refused);
  });
});
