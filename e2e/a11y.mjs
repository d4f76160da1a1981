// SPDX-License-Identifier: GPL-3.0-or-later
// Browser test: every page at 1280 px, in the light and the dark theme, with its data in it.
// No page may overflow horizontally, and axe-core (WCAG 2 A and AA rules) may find no serious
// or critical violation. The header's theme switch goes auto → dark → light, is remembered
// across a reload, and the charts stay readable (the plotters picture is inverted in the dark).
// Usage: node e2e/a11y.mjs <base-url> [--token=TOKEN] <path>...
// With --token, each context signs in with it first (the admin's console is for admins).
import { createRequire } from 'node:module';
import { run, step, watch } from './lib.mjs';

const require = createRequire(import.meta.url);
const axeSource = require('fs').readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

const [base, ...rest] = process.argv.slice(2);
const signInWith = rest.find((a) => a.startsWith('--token='))?.slice('--token='.length);
const paths = rest.filter((a) => !a.startsWith('--token='));
if (!base || paths.length === 0) {
  console.error('usage: node e2e/a11y.mjs <base-url> <path>...');
  process.exit(2);
}

await run(async (_unused, errors, browser) => {
  for (const scheme of ['light', 'dark']) {
    // The system's preference (no choice remembered): prefers-color-scheme decides.
    // bypassCSP lets the test inject axe; the pages themselves run under their CSP otherwise.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: scheme, bypassCSP: true });
    const page = await context.newPage();
    watch(page, errors);
    if (signInWith) {
      await page.goto(`${base}/signin`);
      await page.waitForSelector('body[data-hydrated="true"]');
      await page.fill('#signin-token', signInWith);
      await Promise.all([page.waitForNavigation(), page.click('#signin-submit')]);
      await page.waitForSelector('#signed-in');
    }
    for (const path of paths) {
      await page.goto(`${base}${path}`);
      await page.waitForSelector('body[data-hydrated="true"]');
      if (path.startsWith('/trend')) {
        // The panel of the selected commit is part of the page's layout: select one.
        await page.waitForSelector('#trend-svg circle.point');
        await page.keyboard.press('j');
        await page.waitForSelector('#trend-svg circle.point.selected');
      }
      const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const dark = bg === 'rgb(13, 17, 23)';
      if (dark !== (scheme === 'dark')) throw new Error(`${path}: ${scheme} scheme but body background ${bg}`);
      const { scroll, client, widest } = await page.evaluate(() => {
        const root = document.documentElement;
        let widest = '';
        let right = 0;
        for (const el of document.querySelectorAll('body *')) {
          const r = el.getBoundingClientRect();
          if (r.right > right) { right = r.right; widest = `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}${el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : ''} (right edge ${Math.round(r.right)} px)`; }
        }
        return { scroll: root.scrollWidth, client: root.clientWidth, widest };
      });
      // Every plotters picture (drawn dark on white) is inverted in the dark, none in the light.
      const charts = await page.$$eval('img.chart, img.bisection-chart, .chart-box', (els) => els.map((e) => `${e.className}: ${getComputedStyle(e).filter}`));
      const wrong = charts.filter((c) => c.includes('invert') !== dark);
      if (wrong.length) throw new Error(`${path} (${scheme}): charts not following the theme: ${wrong.join('; ')}`);
      if (scroll > client) throw new Error(`${path} (${scheme}) overflows: ${scroll} px wide in a ${client} px window; widest: ${widest}`);
      await page.evaluate(axeSource);
      const result = await page.evaluate(() => window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }));
      const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      if (bad.length) {
        const lines = bad.map((v) => `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.slice(0, 4).map((n) => `${n.target.join(' ')}: ${n.failureSummary?.split('\n').slice(1).join(' ')}`).join('\n    ')}`);
        throw new Error(`${path} (${scheme}): axe found ${bad.length} serious violations:\n  ${lines.join('\n  ')}`);
      }
      step(`${path} (${scheme}): no overflow at 1280 px, no serious axe violation (${result.passes.length} rules passed, ${result.violations.length} minor)`);
    }
    await context.close();
  }

  // The switch: auto → dark → light, remembered across a reload, and the charts follow.
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  const page = await context.newPage();
  watch(page, errors);
  const trend = paths.find((p) => p.startsWith('/trend')) ?? paths[0];
  await page.goto(`${base}${trend}`);
  await page.waitForSelector('body[data-hydrated="true"]');
  const state = async () => page.evaluate(() => ({
    theme: document.documentElement.getAttribute('data-theme'),
    label: document.querySelector('button.theme-toggle').textContent,
    bg: getComputedStyle(document.body).backgroundColor,
    chart: getComputedStyle(document.querySelector('.chart-box') ?? document.body).filter,
  }));
  let s = await state();
  if (s.theme !== null || s.label !== 'Theme: auto') throw new Error(`start: ${JSON.stringify(s)}`);
  await page.click('button.theme-toggle');
  s = await state();
  if (s.theme !== 'dark' || s.bg !== 'rgb(13, 17, 23)' || !s.chart.includes('invert')) throw new Error(`after one click: ${JSON.stringify(s)}`);
  await page.reload();
  await page.waitForSelector('body[data-hydrated="true"]');
  s = await state();
  if (s.theme !== 'dark' || s.label !== 'Theme: dark') throw new Error(`after a reload: ${JSON.stringify(s)}`);
  await page.click('button.theme-toggle');
  s = await state();
  if (s.theme !== 'light' || s.bg === 'rgb(13, 17, 23)' || s.chart !== 'none') throw new Error(`after two clicks: ${JSON.stringify(s)}`);
  await page.click('button.theme-toggle');
  s = await state();
  if (s.theme !== null || s.label !== 'Theme: auto') throw new Error(`after three clicks: ${JSON.stringify(s)}`);
  step('the theme switch goes auto → dark → light → auto, is remembered across a reload, and inverts the chart in the dark');
  await context.close();
});
