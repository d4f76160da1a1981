// SPDX-License-Identifier: GPL-3.0-or-later
// Measures what a page costs in Chromium: the HTML's bytes on the wire and decoded, and the
// times from navigation start to `load` and to the page hydrated (the WASM has run: the trend
// chart is drawn and live). Prints one line per page; the median of `runs` loads.
// Usage: node e2e/page_weight.mjs <base-url> <runs> <path>...
import { launch } from './lib.mjs';

const [base, runsArg, ...paths] = process.argv.slice(2);
const runs = Number(runsArg);
if (!base || !runs || paths.length === 0) {
  console.error('usage: node e2e/page_weight.mjs <base-url> <runs> <path>...');
  process.exit(2);
}
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const browser = await launch();
try {
  for (const path of paths) {
    const samples = [];
    for (let i = 0; i < runs; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      // When the WASM marks the page hydrated, on the page's own clock.
      await page.addInitScript(() => {
        new MutationObserver((_, obs) => {
          if (document.body?.dataset.hydrated === 'true') { window.__hydratedAt = performance.now(); obs.disconnect(); }
        }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-hydrated'] });
      });
      await page.goto(`${base}${path}`, { waitUntil: 'load' });
      await page.waitForFunction(() => window.__hydratedAt !== undefined, null, { timeout: 60000 });
      samples.push(await page.evaluate(() => {
        const nav = performance.getEntriesByType('navigation')[0];
        return { wire: nav.encodedBodySize, html: nav.decodedBodySize, load: nav.loadEventEnd, hydrated: window.__hydratedAt };
      }));
      await context.close();
    }
    const m = (k) => median(samples.map((s) => s[k]));
    console.log(`page ${path}: html ${m('html')} B, on the wire ${m('wire')} B; load ${m('load').toFixed(0)} ms, hydrated ${m('hydrated').toFixed(0)} ms (${(m('hydrated') - m('load')).toFixed(0)} ms after load); median of ${runs}`);
  }
} finally {
  await browser.close();
}
