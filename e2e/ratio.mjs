// SPDX-License-Identifier: GPL-3.0-or-later
// Browser test: the compare page's ratio view (a row per message size, a column per kernel,
// ratio-to-baseline columns) with the sweep chart on a log2 axis, and the toggle back.
// Usage: node e2e/ratio.mjs <base-url> <compare-path>
import { run, step } from './lib.mjs';

const [base, path] = process.argv.slice(2);
if (!base || !path) {
  console.error('usage: node e2e/ratio.mjs <base-url> <compare-path>');
  process.exit(2);
}
await run(async (page) => {
  await page.goto(`${base}${path}&ratio=1`);
  await page.waitForSelector('body[data-hydrated="true"]');
  await page.waitForSelector('#ratio-view .ratio-table');
  if (!(await page.isVisible('#ratio-view'))) throw new Error('the ratio view is hidden');
  if (await page.isVisible('#compare-table')) throw new Error('the statistics table shows too');
  const rows = await page.$$eval('#ratio-view .ratio-table tbody tr[data-param]', (rs) =>
    rs.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent.trim())));
  if (rows.length !== 5) throw new Error(`rows: ${JSON.stringify(rows)}`);
  // np01: 64 bytes, Hmean 1564.02 / 1464.87 / 1533.30: 94% and 98% of the baseline.
  const first = rows[0];
  if (first[0] !== '64' || first[1] !== '1564.02' || first[4] !== '94%' || first[5] !== '98%') {
    throw new Error(`first row: ${JSON.stringify(first)}`);
  }
  step(`ratio view: ${rows.length} message sizes, 64 bytes ${first.join(' ')}`);
  const svg = await (await page.request.get(`${base}${await page.getAttribute('#compare-chart', 'src')}`)).text();
  if (!svg.includes('log₂')) throw new Error('the sweep chart is not on a log2 axis');
  step('the sweep chart beside it is on a log2 axis');
  await page.click('#toggle-ratio');
  await page.waitForSelector('#compare-table', { state: 'visible' });
  if (await page.isVisible('#ratio-view')) throw new Error('the ratio view stays after the toggle');
  step('the toggle shows the statistics table again');
});
