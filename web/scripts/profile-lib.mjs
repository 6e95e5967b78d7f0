// What the page's profiling scripts (profile-first-result.mjs, profile-edit.mjs) share: the
// builds they serve (web/dist, or PROFILE_DIST=a,b for an A/B comparison) with `vite preview`, and
// Debian's headless Chromium with the browser tests' flags (OPTIMUS_CHROMIUM names another;
// PROFILE_CHROMIUM_ARGS adds flags).
import { chromium } from 'playwright-core';
import { preview } from 'vite';
import { fileURLToPath } from 'node:url';

export const web = fileURLToPath(new URL('../', import.meta.url));
export const dists = (process.env.PROFILE_DIST ?? `${web}dist`).split(',');

/** One `vite preview` server per build in `dists`, on free ports. */
export const serveBuilds = () =>
  Promise.all(dists.map((outDir) => preview({ root: web, configFile: `${web}vite.config.ts`, logLevel: 'warn', build: { outDir }, preview: { host: '127.0.0.1', port: 0 } })));

export const launchChromium = () =>
  chromium.launch({
    executablePath: process.env.OPTIMUS_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', ...(process.env.PROFILE_CHROMIUM_ARGS ?? '').split(' ').filter(Boolean)],
  });
