// The headless Chromium every browser measure runs (the flags the project's browser tests use).
import fs from 'node:fs';
import { chromium } from 'playwright-core';

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'];

export const launchChromium = () => chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });

/** The machine's load average (1, 5, 15 minutes), printed beside each run of a script. */
export const loadAverage = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
