// SPDX-License-Identifier: GPL-3.0-or-later
// Browser test (issue 54): the whole tree's page (/compare?benchmark=*) of the tree of every
// mmtests family, in the light and the dark theme, at 1280 and 400 px: the summary leads to
// every section, marked cells and chart bars are coloured by the theme, nothing is wider than
// the window; and the saved copy (format=html) opens alone, under its own policy, as readable.
// Usage: node e2e/tree.mjs <base-url> <page-path> <sections>
// Run by server/tests/it/browser.rs, which starts the server and uploads the tree.
import { run, step, watch } from './lib.mjs';

const [base, path, expected] = process.argv.slice(2);
if (!expected) {
  console.error('usage: node e2e/tree.mjs <base-url> <page-path> <sections>');
  process.exit(2);
}
const saved = `${base}/api/v1/compare?${path.split('?')[1]}&format=html`;

await run(async (_unused, errors, browser) => {
  for (const scheme of ['light', 'dark']) {
    for (const width of [1280, 400]) {
      const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
      const page = await context.newPage();
      watch(page, errors);
      for (const [what, url] of [['page', `${base}${path}`], ['saved page', saved]]) {
        const started = Date.now();
        const answer = await page.goto(url, { waitUntil: 'domcontentloaded' });
        await page.waitForSelector('#tree-toc');
        const took = Date.now() - started;
        const bytes = (await answer.body()).length;
        const sections = await page.$$eval('section.tree-section', (s) => s.length);
        if (String(sections) !== expected) throw new Error(`${what}: ${sections} sections, expected ${expected}`);
        const links = await page.$$eval('#tree-toc a[href^="#b-"]', (as) => as.length);
        if (links !== sections) throw new Error(`${what}: ${links} contents links for ${sections} sections`);
        const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
        if ((bg === 'rgb(13, 17, 23)') !== (scheme === 'dark')) throw new Error(`${what} (${scheme}): body background ${bg}`);
        // Marked cells and bars are coloured (by the theme's own colours).
        const colours = await page.evaluate(() => {
          const cell = document.querySelector('table.mm td.w');
          const bar = document.querySelector('figure.tree-chart rect.cw');
          return {
            cell: cell && getComputedStyle(cell).backgroundColor,
            bar: bar && getComputedStyle(bar).fill,
            body: getComputedStyle(document.body).backgroundColor,
          };
        });
        if (!colours.cell || colours.cell === 'rgba(0, 0, 0, 0)' || colours.cell === colours.body) throw new Error(`${what} (${scheme}): a worse cell is not coloured: ${JSON.stringify(colours)}`);
        if (!colours.bar || colours.bar === 'rgb(0, 0, 0)') throw new Error(`${what} (${scheme}): a worse bar is not coloured: ${JSON.stringify(colours)}`);
        // Nothing wider than the window: wide tables scroll inside their box.
        const { scroll, client, widest } = await page.evaluate(() => {
          const root = document.documentElement;
          let widest = '';
          let right = 0;
          for (const el of document.querySelectorAll('body *')) {
            if (el.closest('.wide')) continue;
            const r = el.getBoundingClientRect();
            if (r.right > right) { right = r.right; widest = `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''} (right edge ${Math.round(r.right)} px)`; }
          }
          return { scroll: root.scrollWidth, client: root.clientWidth, widest };
        });
        if (scroll > client) throw new Error(`${what} (${scheme}, ${width} px) overflows: ${scroll} px wide in ${client} px; widest: ${widest}`);
        // The contents lead to a section.
        const target = await page.$eval('#tree-toc a[href^="#b-"]:last-of-type', (a) => a.getAttribute('href'));
        const last = await page.$$eval('#tree-toc a[href^="#b-"]', (as) => as[as.length - 1].getAttribute('href'));
        await page.click(`#tree-toc a[href="${last}"]`);
        const seen = await page.$eval(last, (s) => { const r = s.getBoundingClientRect(); return r.top >= -2 && r.top < window.innerHeight; });
        if (!seen || !target) throw new Error(`${what}: ${last} not scrolled into view`);
        step(`${what} (${scheme}, ${width} px): ${sections} sections, ${bytes} bytes, readable in ${took} ms; coloured cells ${colours.cell}, bars ${colours.bar}; no overflow`);
      }
      await context.close();
    }
  }
});
