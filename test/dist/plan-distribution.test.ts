// The plan of `core dist`: which modules build, with which variant, in how many bundle() calls.
import { expect } from 'chai';
import { planDistribution, distributionTarget } from '../../src/dist/plan-distribution.js';
import { manifestInvalid } from '../../src/workspace/diagnostics.js';
import { moduleOf, workspaceOf } from './models.js';

const ESBUILD = { name: 'esbuild', specifier: '@core-js/packages/bundlers/esbuild' };
const specifiers = (plan: ReturnType<typeof planDistribution>) => plan.jobs.map((job) => job.modules.map((m) => m.specifier));

describe('distributionTarget', () => {
  it('builds for browsers whatever runs on the web, for Node.js what runs only there', () => {
    expect(distributionTarget({ platforms: ['web'] })).to.equal('browser');
    expect(distributionTarget({ platforms: ['node', 'web'] })).to.equal('browser');
    expect(distributionTarget({ platforms: ['node'] })).to.equal('node');
  });
});

describe('planDistribution', () => {
  it('batches the modules of one bundler and one variant into one job', () => {
    const plan = planDistribution(workspaceOf([moduleOf('@a/app/one'), moduleOf('@a/app/two'), moduleOf('@a/lib/three')]), 1);
    expect(specifiers(plan)).to.deep.equal([['@a/app/one', '@a/app/two', '@a/lib/three']]);
    expect(plan.jobs[0]!.variant).to.deep.equal({ target: 'browser', env: 'production', min: true, sourcemap: 'none' });
    expect(plan.invalid).to.deep.equal([]);
  });

  it('separates bundlers and targets, node-only modules building for Node.js in production', () => {
    const plan = planDistribution(
      workspaceOf([moduleOf('@a/app/web'), moduleOf('@a/app/server', { platforms: ['node'] }), moduleOf('@a/app/other', { bundler: ESBUILD })]),
      4,
    );
    expect(specifiers(plan)).to.deep.equal([['@a/app/web'], ['@a/app/server'], ['@a/app/other']]);
    expect(plan.jobs.map((job) => [job.bundler.name, job.variant.target, job.variant.env, job.variant.min, job.variant.sourcemap])).to.deep.equal([
      ['ts', 'browser', 'production', true, 'none'],
      ['ts', 'node', 'production', true, 'none'],
      ['esbuild', 'browser', 'production', true, 'none'],
    ]);
  });

  it('splits a batch into as many nearly equal jobs as there are cores, never more than modules', () => {
    const modules = ['a', 'b', 'c', 'd', 'e'].map((name) => moduleOf(`@a/app/${name}`));
    expect(specifiers(planDistribution(workspaceOf(modules), 2))).to.deep.equal([
      ['@a/app/a', '@a/app/b', '@a/app/c'],
      ['@a/app/d', '@a/app/e'],
    ]);
    expect(planDistribution(workspaceOf(modules), 8).jobs).to.have.length(5);
    expect(planDistribution(workspaceOf(modules), 0).jobs).to.have.length(1);
  });

  it('keeps modules with invalid manifests out of every job, with their diagnostics', () => {
    const problem = manifestInvalid('app/bad/module.json', 'app/bad/module.json: "platforms" may hold "web" and "node" only');
    const bad = moduleOf('@a/app/bad', { diagnostics: [problem] });
    const plan = planDistribution(workspaceOf([bad, moduleOf('@a/app/good')]), 2);
    expect(specifiers(plan)).to.deep.equal([['@a/app/good']]);
    expect(plan.invalid).to.deep.equal([{ status: 'invalid', module: bad, diagnostics: [problem] }]);
  });

  it('plans nothing for a workspace without modules', () => {
    expect(planDistribution(workspaceOf([]), 2)).to.deep.equal({ jobs: [], invalid: [] });
  });
});
