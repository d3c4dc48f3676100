// The bundler registry (src/bundlers/registry.ts): what it tells the loaded bundlers.
import { expect } from 'chai';
import { createBundlerRegistry } from '../../src/bundlers/registry.js';
import type { Bundler } from '../../src/bundlers/types.js';

describe('createBundlerRegistry', () => {
  it('tells every loaded bundler of files just saved, with the bytes the service read', async () => {
    const told: Record<string, [readonly string[], string | undefined][]> = { loaded: [], plain: [] };
    const fake = (name: string): Bundler => ({
      bundle: async () => [],
      rebuild: async () => {
        throw new Error('not built here');
      },
      ...(name === 'plain' ? {} : { anticipate: (saved: readonly string[], bytesOf: (file: string) => Uint8Array | undefined) => told[name]!.push([saved, bytesOf(saved[0]!)?.toString()]) }),
      dispose: async () => {},
    });
    const registry = createBundlerRegistry('/nowhere', (specifier) => ({ load: async () => ({ createBundler: () => fake(specifier) }) }));
    await registry.get({ name: 'a', specifier: 'loaded' });
    await registry.get({ name: 'b', specifier: 'plain' });
    // Still loading: it has built nothing yet, so nothing of its can be anticipated.
    void registry.get({ name: 'c', specifier: 'loading' });
    registry.anticipate!(['app/a.css'], (file) => Buffer.from(`${file} bytes`));
    expect(told).to.deep.equal({ loaded: [[['app/a.css'], 'app/a.css bytes']], plain: [] });
    await registry.dispose();
  });

  // A bundler that finished loading after the service closed was never disposed: its contexts
  // and builds held esbuild's process past the close.
  it('disposes a bundler still loading when it is disposed, and waits for it', async () => {
    const events: string[] = [];
    let loaded!: () => void;
    const loading = new Promise<void>((resolve) => (loaded = resolve));
    const fake: Bundler = {
      bundle: async () => [],
      rebuild: async () => {
        throw new Error('not built here');
      },
      dispose: async () => void events.push('bundler disposed'),
    };
    const registry = createBundlerRegistry('/nowhere', () => ({ load: async () => (await loading, { createBundler: () => fake }) }));
    const got = registry.get({ name: 'late', specifier: 'late' }).then(
      () => 'a bundler',
      (error: Error) => error.name,
    );
    const disposed = registry.dispose().then(() => void events.push('registry disposed'));
    loaded();
    await disposed;
    expect(events).to.deep.equal(['bundler disposed', 'registry disposed']);
    expect(await got, 'the build that asked for it').to.equal('BuildCancelled');
    expect(await registry.get({ name: 'other', specifier: 'other' }).then(() => 'a bundler', (error: Error) => error.name), 'asked after dispose()').to.equal('BuildCancelled');
  });
});
