// The headless Chromium every browser measure runs (the flags the project's browser tests use).
import fs from 'node:fs';
import { chromium } from 'playwright-core';

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'];

export const launchChromium = () => chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });

/** The machine's load average (1, 5, 15 minutes), printed beside each run of a script. */
export const loadAverage = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/**
 * The cold scripts' runs (cold-cpu.js, cold-phases.js): each build once per run, alternated, in one
 * browser; `line` says what one run found. The results of each build, in order.
 */
export async function alternatedRuns(builds, runs, once, line) {
  const results = new Map(builds.map((build) => [build.label, []]));
  const browser = await launchChromium();
  try {
    for (let run = 0; run < runs; run++) {
      for (const build of builds) {
        const result = await once(browser, build);
        results.get(build.label).push(result);
        process.stdout.write(`${build.label} run ${run + 1}: ${line(result)} (load ${loadAverage()})\n`);
      }
    }
  } finally {
    await browser.close();
  }
  return results;
}
