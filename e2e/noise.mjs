// SPDX-License-Identifier: GPL-3.0-or-later
// Browser test: the noise model on the pages. The compare page names the runs a row needs,
// the trend page shows the noise, the newest step's advice and the noise band, and the
// calibration page lists the A/A series by noise.
// Usage: node e2e/noise.mjs <base-url>
import { run, step } from './lib.mjs';

const [base] = process.argv.slice(2);
if (!base) {
  console.error('usage: node e2e/noise.mjs <base-url>');
  process.exit(2);
}
await run(async (page) => {
  await page.goto(`${base}/compare?benchmark=b&machine=m&kernels=6.1.0,6.2.0`);
  await page.waitForSelector('body[data-hydrated="true"]');
  const advice = page.locator('#compare-table tr[data-label="tput"] td.row-label .advice');
  await advice.waitFor();
  const short = (await advice.textContent()).trim();
  if (short !== 'needs ≥ 9 runs') throw new Error(`the row's advice: ${short}`);
  const title = await advice.getAttribute('title');
  if (!title.includes('(has 3; between-boot CV 1.4 %)')) throw new Error(`its sentence: ${title}`);
  step(`compare: the row says "${short}" (${title})`);

  await page.goto(`${base}/trend?benchmark=netperf&machine=lkp-bdw-de1&metric=Throughput_Mbps`);
  await page.waitForSelector('body[data-hydrated="true"]');
  const noise = (await page.textContent('#trend-noise')).trim();
  if (!/^within-run CV [0-9.]+ % \(n 150\), between-boot CV [0-9.]+ % \(n 30\)/.test(noise)) {
    throw new Error(`the trend's noise: ${noise}`);
  }
  const newest = (await page.textContent('#trend-advice')).trim();
  if (!newest.startsWith('Newest step: enough runs to tell a 2.0 % change')) {
    throw new Error(`the newest step's advice: ${newest}`);
  }
  const src = await page.getAttribute('img.trend-chart', 'src');
  if (!decodeURIComponent(src).includes('#787878')) throw new Error('no noise band on the chart');
  step(`trend: ${noise}; ${newest}; the chart draws the noise band`);

  await page.goto(`${base}/calibration`);
  await page.waitForSelector('body[data-hydrated="true"]');
  const row = page.locator('#calibration tbody tr[data-series="Throughput.16384"]');
  await row.waitFor();
  const between = (await row.locator('td.between').textContent()).trim();
  const dominant = (await row.locator('td.dominant').textContent()).trim();
  if (between !== '0.79 %' || dominant !== 'between boots') {
    throw new Error(`calibration row: ${between} ${dominant}`);
  }
  const first = await page.$$eval('#calibration tbody tr', (rs) => rs.length);
  step(`calibration: ${first} A/A series, Throughput between-boot CV ${between}, ${dominant} dominate`);
});
