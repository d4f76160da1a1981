// SPDX-License-Identifier: GPL-3.0-or-later
// Browser test: the dashboard leads with the open regressions; the alerts page lists the
// summaries, triages them with the keyboard (j/k move, a acknowledge, i invalid) and links to
// the trend with the alert's commit range selected.
// Usage: node e2e/alerts.mjs <base-url>
import { run, step } from './lib.mjs';

const [base] = process.argv.slice(2);
if (!base) {
  console.error('usage: node e2e/alerts.mjs <base-url>');
  process.exit(2);
}
await run(async (page) => {
  await page.goto(`${base}/`);
  await page.waitForSelector('body[data-hydrated="true"]');
  const open = await page.$$eval('#open-regressions li', (ls) => ls.map((l) => l.textContent));
  if (open.length !== 2 || !open.every((t) => t.includes('regression'))) throw new Error(`dashboard: ${open}`);
  step(`the dashboard leads with ${open.length} open regressions`);

  // The metric filter is a type-to-search picker of the metrics with alerts: type, arrow
  // down to the match, Enter chooses it, Enter again filters.
  await page.goto(`${base}/alerts`);
  await page.waitForSelector('body[data-hydrated="true"]');
  await page.focus('#alert-metric');
  await page.keyboard.type('put_m');
  await page.waitForSelector('#alert-metric-list[data-for="put_m"] li[data-metric="Throughput_Mbps"]');
  await page.keyboard.press('ArrowDown');
  await page.waitForSelector('#alert-metric-list li.active[data-metric="Throughput_Mbps"]');
  await page.keyboard.press('Enter');
  if ((await page.inputValue('#alert-metric')) !== 'Throughput_Mbps') throw new Error('the picker did not fill the field');
  await Promise.all([page.waitForURL(/metric=Throughput_Mbps/), page.keyboard.press('Enter')]);
  await page.waitForSelector('.alert-summary');
  const filtered = await page.$$eval('.alert-summary', (as) => as.length);
  if (filtered !== 2) throw new Error(`summaries on Throughput_Mbps: ${filtered}`);
  step('the metric picker: typed, chosen with the arrow keys and Enter, filtered by it');

  await page.goto(`${base}/alerts`);
  await page.waitForSelector('body[data-hydrated="true"]');
  await page.waitForSelector('.alert-summary');
  const ids = await page.$$eval('.alert-summary', (as) => as.map((a) => a.dataset.id));
  if (ids.length !== 2) throw new Error(`summaries listed: ${ids}`);
  const spark = await page.$$eval('.alert-summary svg.spark polyline', (ps) => ps.length);
  if (spark !== 2) throw new Error(`sparklines: ${spark}`);
  const bisect = await page.textContent(`#summary-${ids[0]} code.bisect`);
  if (!bisect.startsWith('git bisect start ')) throw new Error(`bisect: ${bisect}`);

  // j selects the second (older) summary; a acknowledges it.
  await page.keyboard.press('j');
  await page.waitForSelector(`#summary-${ids[1]}.selected`);
  await page.keyboard.press('a');
  await page.waitForSelector(`#summary-${ids[1]}[data-status="acknowledged"]`);
  step(`j then a: summary ${ids[1]} acknowledged`);

  // k back to the newest; i marks it invalid, and it leaves the list of open alerts.
  await page.keyboard.press('k');
  await page.waitForSelector(`#summary-${ids[0]}.selected`);
  await page.keyboard.press('i');
  // The list is fetched again: wait for the new one (one summary left), not the loading gap.
  await page.waitForFunction((id) => {
    const left = document.querySelectorAll('.alert-summary');
    return left.length === 1 && !document.querySelector(`#summary-${id}`);
  }, ids[0]);
  const left = await page.$$eval('.alert-summary', (as) => as.map((a) => a.dataset.id));
  if (left.length !== 1 || left[0] !== ids[1]) throw new Error(`still open: ${left}`);
  step(`k then i: summary ${ids[0]} invalid, gone from the open list`);

  // The trend link opens the trend with the commit range selected.
  await Promise.all([page.waitForNavigation(), page.click(`#summary-${ids[1]} a.trend-link`)]);
  await page.waitForSelector('body[data-hydrated="true"]');
  await page.waitForSelector('#alert-range');
  const x = await page.getAttribute('#trend-selected', 'data-x');
  step(`the trend page shows the alert range, commit ${x} selected`);
  console.log(`selected-x=${x}`);
});
