// SPDX-License-Identifier: GPL-3.0-or-later
// Browser test (issue 54, point 3): the differential profile page of two LKP commits with
// folded stacks, in real headless Chromium, in the light and the dark theme, at 1280 and at
// 400 px: the call-chain tree opens and closes without script (<details>), the children/self
// table is sorted by the change, the flame graph is an inline SVG whose frames carry their
// <title>, nothing on the page runs against its CSP, and the page never scrolls sideways.
// Usage: node e2e/profile.mjs <base-url> <profile-path>
// Run by server/tests/it/browser.rs, which starts the server and uploads the jobs.
import { createRequire } from 'node:module';
import { run, step, watch } from './lib.mjs';

const require = createRequire(import.meta.url);
const axeSource = require('fs').readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

const [base, path] = process.argv.slice(2);
if (!path) {
  console.error('usage: node e2e/profile.mjs <base-url> <profile-path>');
  process.exit(2);
}

await run(async (_unused, errors, browser) => {
  for (const scheme of ['light', 'dark']) {
    for (const width of [1280, 400]) {
      // bypassCSP lets the test inject axe at the end (a CSP violation before it still fails).
      const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme, bypassCSP: true });
      const page = await context.newPage();
      watch(page, errors);
      // A CSP violation is a console error (watch fails the test on it); count them anyway.
      const violations = [];
      page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) violations.push(m.text()); });
      await page.goto(`${base}${path}`);
      await page.waitForSelector('body[data-hydrated="true"]');
      const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      if ((bg === 'rgb(13, 17, 23)') !== (scheme === 'dark')) throw new Error(`${scheme}: body background ${bg}`);

      // The tree: the first closed node opens on a click and shows its callees.
      const closed = page.locator('#chains details:not([open]) > summary').first();
      await closed.scrollIntoViewIfNeeded();
      const before = await page.locator('#chains details[open]').count();
      await closed.click();
      const after = await page.locator('#chains details[open]').count();
      if (after !== before + 1) throw new Error(`a click on a closed node: ${before} -> ${after} open nodes`);
      const nodes = await page.locator('#chains .node').count();
      if (nodes < 50) throw new Error(`${nodes} nodes in the tree`);

      // The table: sorted by the larger change in points, descending.
      const moved = await page.$$eval('#symbols tbody tr', (trs) => trs.map((tr) => {
        const cells = [...tr.querySelectorAll('td')].map((td) => parseFloat(td.textContent.replace('−', '-')));
        return Math.max(Math.abs(cells[3]) || 0, Math.abs(cells[6]) || 0);
      }));
      if (moved.length < 50) throw new Error(`${moved.length} symbol rows`);
      for (let i = 1; i < moved.length; i++) {
        if (moved[i] > moved[i - 1] + 0.011) throw new Error(`row ${i + 1} moved ${moved[i]} after ${moved[i - 1]}`);
      }

      // The flame graph: frames with titles, no script element anywhere in it, red and blue.
      const flame = await page.evaluate(() => {
        const svg = document.querySelector('#flame-graph');
        if (!svg) return null;
        const r = svg.getBoundingClientRect();
        return {
          frames: svg.querySelectorAll('g > rect').length,
          titles: svg.querySelectorAll('g > title').length,
          scripts: svg.querySelectorAll('script').length,
          red: [...svg.querySelectorAll('rect')].filter((x) => /^rgb\(255,/.test(x.getAttribute('fill'))).length,
          blue: [...svg.querySelectorAll('rect')].filter((x) => /,255\)$/.test(x.getAttribute('fill'))).length,
          width: r.width, height: r.height,
        };
      });
      if (!flame) throw new Error('no flame graph');
      if (flame.frames < 50 || flame.titles !== flame.frames) throw new Error(`flame graph: ${JSON.stringify(flame)}`);
      if (flame.scripts || !flame.red || !flame.blue) throw new Error(`flame graph: ${JSON.stringify(flame)}`);
      // Hover: the frame under the pointer is the one whose title the browser shows.
      const hovered = await page.evaluate(() => {
        const g = [...document.querySelectorAll('#flame-graph g')].find((x) => x.querySelector('rect').getAttribute('width') > 100);
        return g ? g.querySelector('title').textContent : '';
      });
      if (!/after: .* %.*\nbefore: .*\nchange: [+-]/s.test(hovered)) throw new Error(`a frame's title: ${hovered}`);
      if (violations.length) throw new Error(`CSP: ${violations.join('\n')}`);

      // Never wider than the window (the tree, table and graph scroll inside themselves).
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      if (wide > width + 1) {
        const out = await page.evaluate((w) => [...document.querySelectorAll('body *')]
          .filter((e) => e.getBoundingClientRect().right > w + 1 && ![...e.children].some((c) => c.getBoundingClientRect().right > w + 1))
          .slice(0, 8).map((e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${e.className} (${Math.round(e.getBoundingClientRect().right)} px)`), width);
        throw new Error(`${scheme} at ${width} px: the page is ${wide} px wide: ${out.join(', ')}`);
      }
      // axe-core (WCAG 2 A and AA), as e2e/a11y.mjs runs it: no serious or critical violation.
      await page.evaluate(axeSource);
      const result = await page.evaluate(() => window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }));
      const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      if (bad.length) {
        const lines = bad.map((v) => `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.slice(0, 4).map((n) => n.target.join(' ')).join('\n    ')}`);
        throw new Error(`${scheme} at ${width} px: axe found ${bad.length} serious violations:\n  ${lines.join('\n  ')}`);
      }
      step(`${scheme} at ${width} px: no serious axe violation (${result.passes.length} rules passed); ${nodes} tree nodes, a node opens on a click, ${moved.length} symbols sorted by change, flame graph of ${flame.frames} frames (${flame.red} red, ${flame.blue} blue) ${Math.round(flame.width)}×${Math.round(flame.height)} px, no sideways scroll`);
      await context.close();
    }
  }
});
