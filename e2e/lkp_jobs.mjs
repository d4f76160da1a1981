// SPDX-License-Identifier: GPL-3.0-or-later
// Browser test (issue 28): pages of 5,000-key LKP jobs in real headless Chromium — the compare
// page of two commits (changed rows first, filtered by keyboard, paged), a run's page (metrics
// with a direction first, by prefix), and every page at 400 px wide (navigation whole, no
// sideways page scroll, the trend chart at a readable height).
// Usage: node e2e/lkp_jobs.mjs <base-url> <base-commit> <head-commit> <run-id>
// Run by server/tests/it/browser.rs, which starts the server and uploads the jobs.
import { run, step } from './lib.mjs';

const [base, good, bad, runId] = process.argv.slice(2);
if (!runId) {
  console.error('usage: node e2e/lkp_jobs.mjs <base-url> <base-commit> <head-commit> <run-id>');
  process.exit(2);
}
const labels = (page) => page.$$eval('#compare-table tr[data-label]', (trs) => [...new Set(trs.map((t) => t.dataset.label))]);

await run(async (page) => {
  // mmtests' statistics of two LKP jobs (`view=mmtests`; the LKP table is e2e/lkp_compare.mjs').
  const compare = `${base}/compare?benchmark=netperf&machine=lkp-bdw-de1&commits=${good},${bad}&view=mmtests`;
  const started = Date.now();
  // Readable: the table is there (the charts may still be drawing).
  const answer = await page.goto(compare, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('#compare-table');
  const took = Date.now() - started;
  const bytes = (await answer.body()).length;
  if (bytes > 1_000_000) throw new Error(`compare page is ${bytes} bytes`);
  // The time is reported, not asserted: tests share the machine with a debug server
  // (BENCHMARKS.md records it).
  step(`compare page of two commits of 5,000-key jobs: ${bytes} bytes, readable in ${took} ms`);
  const place = await page.textContent('#rows-page');
  if (!place.includes('5000 metrics; 20 changed, shown first')) throw new Error(`rows: ${place}`);
  let shown = await labels(page);
  if (shown[0] !== 'netperf.Throughput_Mbps' || shown.length !== 50) throw new Error(`rows shown: ${shown.slice(0, 5)} (${shown.length})`);
  step(`the KPI leads, 50 rows a page: ${place.trim()}`);

  // The filter with the keyboard: focus it, type, Enter.
  await page.waitForSelector('body[data-hydrated="true"]');
  await page.focus('#rows-filter input[name="filter"]');
  await page.keyboard.type('sched_debug');
  await Promise.all([page.waitForURL(/filter=sched_debug/), page.keyboard.press('Enter')]);
  await page.waitForSelector('#compare-table');
  shown = await labels(page);
  if (!shown.length || !shown.every((l) => l.startsWith('sched_debug.'))) throw new Error(`filtered rows: ${shown.slice(0, 5)}`);
  await Promise.all([page.waitForURL(/page=2/), page.click('#rows-page a[rel="next"]')]);
  const second = await page.textContent('#rows-page');
  if (!second.includes('999 of 5000 metrics match') || !second.includes('page 2 of 20')) throw new Error(`page 2: ${second}`);
  step(`filtered by keyboard and paged: ${second.trim()}`);

  // The trend form's metric among 5,000: a type-to-search picker, KPIs first, never a
  // <select> of them all.
  await page.goto(`${base}/trend?benchmark=netperf&machine=lkp-bdw-de1`);
  await page.waitForSelector('body[data-hydrated="true"]');
  if (await page.$('select#series')) throw new Error('the metric picker is a <select> of 5,000 options');
  await page.focus('#series');
  await page.keyboard.type('through');
  await page.waitForSelector('#series-list[data-for="through"] li[data-metric]');
  const offered = await page.$$eval('#series-list li', (ls) => ls.map((l) => l.dataset.metric));
  if (offered[0] !== 'netperf.Throughput_Mbps' || offered.length > 50) throw new Error(`offered: ${offered.slice(0, 5)} (${offered.length})`);
  const said = await page.textContent('#series-status');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await Promise.all([page.waitForURL(/metric=netperf.Throughput_Mbps/), page.click('#trend-submit')]);
  await page.waitForSelector('.chart-box');
  step(`trend picker: "through" offers ${offered.length} (${said.trim()}), the KPI first; chosen by keyboard, charted`);
  // Typing every metric's prefix narrows to fifty with the count of the rest.
  await page.fill('#series', '');
  await page.focus('#series');
  await page.keyboard.type('sched_debug');
  await page.waitForFunction(() => document.querySelector('#series-list').dataset.for === 'sched_debug'
    && document.querySelector('#series-status').textContent.includes('type more'));
  step(`trend picker on a common prefix: ${(await page.textContent('#series-status')).trim()}`);

  // A run's page: its 5,000 series a hundred at a time, those with a direction first.
  await page.goto(`${base}/runs/${runId}`);
  const runPlace = await page.textContent('#series-page');
  if (!runPlace.includes('5000 series; those with a direction first. Rows 1–100, page 1 of 50.')) throw new Error(`run page: ${runPlace}`);
  const first = await page.$$eval('table.series tbody tr td:first-child', (tds) => tds.map((t) => t.textContent));
  if (first.length !== 100 || first[0] !== 'netperf.Throughput_Mbps') throw new Error(`run rows: ${first.slice(0, 3)} (${first.length})`);
  await page.click('details.prefixes summary');
  await Promise.all([page.waitForURL(/filter=slabinfo/), page.click('ul.prefixes a:text-is("slabinfo")')]);
  const slab = await page.$$eval('table.series tbody tr td:first-child', (tds) => tds.map((t) => t.textContent));
  if (!slab.length || !slab.every((m) => m.startsWith('slabinfo.'))) throw new Error(`prefix rows: ${slab.slice(0, 3)}`);
  step(`run page: ${runPlace.trim()}; a prefix's link shows its ${slab.length} rows`);

  // At 1,400 px, the call chains of 250 characters break inside their cells: neither the run
  // page nor the comparison is wider than the window.
  await page.setViewportSize({ width: 1400, height: 900 });
  for (const path of [`/runs/${runId}?filter=calltrace`, `${compare.slice(base.length)}&filter=calltrace`]) {
    await page.goto(`${base}${path}`);
    const rows = await page.$$eval('td', (tds) => tds.filter((t) => t.textContent.includes('ip_finish_output2')).length);
    if (!rows) throw new Error(`${path}: no call chain shown`);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    if (wide > 1401) throw new Error(`${path} is ${wide} px wide at 1,400 px`);
  }
  step('at 1,400 px the run page and the comparison with 250-character keys fit the window');

  // At 400 px: the navigation whole, the page never wider than the screen, charts readable.
  await page.setViewportSize({ width: 400, height: 800 });
  const pages = ['/', '/upload', compare.slice(base.length), compare.slice(base.length).replace('&view=mmtests', ''), `/runs/${runId}`, '/alerts',
    '/trend?benchmark=netperf&machine=lkp-bdw-de1&metric=netperf.Throughput_Mbps'];
  for (const path of pages) {
    await page.goto(`${base}${path}`);
    await page.waitForSelector('body[data-hydrated="true"]');
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    if (wide > 401) {
      // The innermost elements that stick out, to say what to fix.
      const out = await page.evaluate(() => [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > 401 && ![...e.children].some((c) => c.getBoundingClientRect().right > 401))
        .slice(0, 8).map((e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${e.className} (${Math.round(e.getBoundingClientRect().right)} px)`));
      throw new Error(`${path} is ${wide} px wide at 400 px: ${out.join(', ')}`);
    }
    const cut = await page.$$eval('header.top nav a', (as) => as.filter((a) => a.getBoundingClientRect().right > 400).map((a) => a.textContent));
    if (cut.length) throw new Error(`${path}: navigation cut off at 400 px: ${cut}`);
    if (path.startsWith('/trend')) {
      const h = await page.$eval('.chart-box', (c) => c.getBoundingClientRect().height);
      if (h < 200) throw new Error(`trend chart ${h} px high at 400 px`);
      step(`trend chart ${Math.round(h)} px high at 400 px`);
    }
  }
  step(`${pages.length} pages at 400 px: navigation whole, nothing wider than the screen`);
});
