// SPDX-License-Identifier: GPL-3.0-or-later
// Browser test (issue 54, point 2): the compare page of two LKP jobs is LKP-shaped, with a
// robot-sized job (lkp-oracle's 09-big-job, 2,982 keys): lkp-tests' %change table (KPI first,
// changed rows, the toggle to every key, paged), the headline and parameters, a key's trend
// opened on demand, commits picked by typing a word of their subject, and no sideways page
// scroll at 400 px.
// Usage: node e2e/lkp_compare.mjs <base-url> <machine> <base-commit> <head-commit> <subject-word>
// Run by server/tests/it/browser.rs, which starts the server and uploads the jobs.
import { run, step } from './lib.mjs';

const [base, machine, good, bad, word] = process.argv.slice(2);
if (!word) {
  console.error('usage: node e2e/lkp_compare.mjs <base-url> <machine> <base-commit> <head-commit> <subject-word>');
  process.exit(2);
}
const keys = (page) => page.$$eval('#lkp-table tr[data-key]', (trs) => trs.map((t) => t.dataset.key));

await run(async (page) => {
  const path = `/compare?benchmark=netperf&machine=${machine}&commits=${good},${bad}`;
  const started = Date.now();
  const answer = await page.goto(`${base}${path}`, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('#lkp-table');
  const took = Date.now() - started;
  const bytes = (await answer.body()).length;
  if (bytes > 1_000_000) throw new Error(`LKP compare page is ${bytes} bytes`);
  const headline = await page.textContent('#lkp-headline');
  if (!headline.includes('FYI, we noticed a') || !headline.includes('netperf.Throughput_Mbps')) throw new Error(`headline: ${headline}`);
  let shown = await keys(page);
  if (shown[0] !== 'netperf.Throughput_Mbps' || shown.length !== 50) throw new Error(`rows: ${shown.slice(0, 3)} (${shown.length})`);
  const place = await page.textContent('#lkp-rows-page');
  step(`LKP table of 09-big-job: ${bytes} bytes, readable in ${took} ms; ${place.trim()}`);
  const params = await page.textContent('#lkp-params');
  if (!params.includes('ip: ipv4')) throw new Error(`params: ${params}`);
  const head = await page.textContent('#lkp-head-commit');
  if (!head.includes(word)) throw new Error(`head commit without its subject: ${head}`);
  step(`the headline, the parameters and the commit's subject: ${head.trim()}`);

  // A key's trend, on demand.
  await page.waitForSelector('body[data-hydrated="true"]');
  if (await page.$eval('#lkp-table details.spark img', (i) => i.complete && i.naturalWidth > 0)) throw new Error('a trend loaded before it was asked for');
  await page.click('#lkp-table details.spark summary');
  await page.waitForFunction(() => {
    const i = document.querySelector('#lkp-table details.spark img');
    return i.complete && i.naturalWidth > 0;
  });
  step('a key\'s trend is drawn when its row asks for it');

  // Every key, then the next page.
  await Promise.all([page.waitForURL(/all=1/), page.click('#lkp-toggle')]);
  const all = await page.textContent('#lkp-rows-page');
  if (!all.includes('Show only the')) throw new Error(`all rows: ${all}`);
  await Promise.all([page.waitForURL(/page=2/), page.click('#lkp-rows-page a[rel="next"]')]);
  shown = await keys(page);
  if (shown.length !== 50) throw new Error(`page 2 of every key: ${shown.length} rows`);
  step(`every key, paged: ${(await page.textContent('#lkp-rows-page')).trim()}`);

  // The commit picker: a word of the subject, arrow down, Enter, compare.
  await page.goto(`${base}${path}`);
  await page.waitForSelector('body[data-hydrated="true"]');
  await page.fill('#commit-head', '');
  await page.focus('#commit-head');
  await page.keyboard.type(word);
  // The list answers each keystroke (the newest answer wins): wait until it answers the
  // whole word, every commit offered naming it, not a prefix's wider list.
  await page.waitForFunction((w) => {
    const ls = [...document.querySelectorAll('#commit-head-list li[data-sha]')];
    return ls.length > 0 && ls.every((l) => l.textContent.includes(w));
  }, word);
  const offered = await page.$$eval('#commit-head-list li', (ls) => ls.map((l) => l.textContent));
  if (offered.length !== 1 || !offered[0].includes(word)) throw new Error(`offered: ${offered}`);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  const picked = await page.inputValue('#commit-head');
  if (picked !== bad) throw new Error(`picked ${picked}`);
  await Promise.all([page.waitForURL(/commits=/), page.click('#commit-submit')]);
  await page.waitForSelector('#lkp-table');
  step(`commit picked by "${word}": ${offered[0].trim()}`);

  // At 400 px: nothing wider than the screen.
  await page.setViewportSize({ width: 400, height: 800 });
  for (const p of [path, `${path}&all=1`]) {
    await page.goto(`${base}${p}`);
    await page.waitForSelector('body[data-hydrated="true"]');
    await page.click('#lkp-table details.spark summary');
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    if (wide > 401) {
      const out = await page.evaluate(() => [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > 401 && ![...e.children].some((c) => c.getBoundingClientRect().right > 401))
        .slice(0, 8).map((e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${e.className} (${Math.round(e.getBoundingClientRect().right)} px)`));
      throw new Error(`${p} is ${wide} px wide at 400 px: ${out.join(', ')}`);
    }
  }
  step('the LKP page at 400 px: nothing wider than the screen');
});
