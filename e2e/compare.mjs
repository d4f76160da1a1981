// SPDX-License-Identifier: GPL-3.0-or-later
// Browser test: build a comparison through the compare page in real headless Chromium, open
// its permalink in a fresh page, and check that a regression is marked as one.
// Usage: node e2e/compare.mjs <base-url>   (the server must hold the fixture mmtests tree on m1)
// Run by server/tests/it/browser.rs, which starts the server; exits non-zero on any failure.
import { run, step, watch } from './lib.mjs';

const [base] = process.argv.slice(2);
if (!base) {
  console.error('usage: node e2e/compare.mjs <base-url>');
  process.exit(2);
}
const order = (page) => page.$$eval('#kernel-order li', (lis) => lis.map((li) => li.dataset.kernel));
await run(async (_unused, errors, browser) => {
  // A context with the clipboard allowed, for "copy as text".
  const context = await browser.newContext();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  const page = await context.newPage();
  watch(page, errors);
  await page.goto(`${base}/compare`);
  await page.waitForSelector('body[data-hydrated="true"]');
  step('compare page hydrated');

  // Choosing benchmark and machine lists their kernels without a reload.
  await page.selectOption('#benchmark', 'netperf-tcp');
  await page.selectOption('#machine', 'm1');
  await page.waitForSelector('button.add-kernel[data-kernel="5.5.0-vanilla"]');
  const offered = await page.$$eval('button.add-kernel', (bs) => bs.map((b) => b.dataset.kernel));
  const expected = ['5.4.0-vanilla', '5.5.0-rc3-vanilla', '5.5.0-rc3-wakeidle', '5.5.0-vanilla'];
  if (JSON.stringify(offered) !== JSON.stringify(expected)) throw new Error(`kernels offered in order ${offered}`);
  step(`kernels offered in version order: ${offered.join(' < ')}`);

  // Add them in the wrong order, then reorder: the baseline must be 5.4.0-vanilla.
  await page.click('button.add-kernel[data-kernel="5.5.0-vanilla"]');
  await page.click('button.add-kernel[data-kernel="5.5.0-rc3-wakeidle"]');
  await page.click('button.add-kernel[data-kernel="5.4.0-vanilla"]');
  await page.click('#kernel-order li[data-kernel="5.4.0-vanilla"] button.up');
  await page.click('#kernel-order li[data-kernel="5.4.0-vanilla"] button.up');
  let now = await order(page);
  if (now.join(',') !== '5.4.0-vanilla,5.5.0-vanilla,5.5.0-rc3-wakeidle') throw new Error(`after ↑↑: ${now}`);
  step(`reordered with buttons: ${now.join(', ')}`);
  await page.dragAndDrop('#kernel-order li[data-kernel="5.5.0-rc3-wakeidle"]', '#kernel-order li[data-kernel="5.5.0-vanilla"]');
  now = await order(page);
  if (now.join(',') !== '5.4.0-vanilla,5.5.0-rc3-wakeidle,5.5.0-vanilla') throw new Error(`after drag: ${now}`);
  step(`reordered by drag: ${now.join(', ')}`);
  const hidden = await page.inputValue('input[name="kernels"]');
  if (hidden !== now.join(',')) throw new Error(`form carries kernels=${hidden}`);

  await Promise.all([page.waitForURL(/kernels=/), page.click('#compare-submit')]);
  await page.waitForSelector('#compare-table');
  await page.waitForSelector('body[data-hydrated="true"]');
  const url = new URL(page.url());
  if (url.searchParams.get('kernels') !== now.join(',')) throw new Error(`live URL lacks the state: ${page.url()}`);
  step(`live comparison at ${url.pathname}${url.search}`);

  // Copy as text gives mmtests' table with the permalink under it.
  await page.click('#copy-text');
  await page.waitForFunction(() => (document.querySelector('#copy-status')?.textContent ?? '').includes('Copied'));
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  if (!copied.includes('Hmean     tcpstream-send-64') || !copied.includes('Permalink: http')) throw new Error(`copied text: ${copied.slice(0, 300)}`);
  step('copy as text gives the mmtests table and the permalink');

  const href = await page.getAttribute('#permalink', 'href');
  if (!/^\/c\/[A-Za-z0-9]+$/.test(href)) throw new Error(`permalink href ${href}`);

  // A fresh page (no shared state) opens the permalink.
  const fresh = await browser.newPage();
  watch(fresh, errors);
  await fresh.goto(`${base}${href}`);
  await fresh.waitForSelector('#compare-table');
  await fresh.waitForSelector('body[data-hydrated="true"]');
  const cell = fresh.locator('#compare-table tr.stat-Hmean[data-label="tcpstream-send-64"] td.regression').first();
  await cell.waitFor();
  const cellText = await cell.textContent();
  const cellTitle = await cell.getAttribute('title');
  if (!cellText.includes('*') || !cellText.includes('-')) throw new Error(`regression cell reads ${cellText}`);
  if (!/Significant/.test(cellTitle)) throw new Error(`regression cell explains ${cellTitle}`);
  step(`permalink ${href} marks the regression: ${cellText.trim()} (${cellTitle.split('\n')[1]})`);
  const chartWidth = await fresh.$eval('#compare-chart', (img) => img.complete ? img.naturalWidth : 0);
  if (!(chartWidth > 0)) throw new Error('the chart did not load');
  step('chart loaded');

});
