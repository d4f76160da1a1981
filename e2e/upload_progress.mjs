// SPDX-License-Identifier: GPL-3.0-or-later
// Browser test: the upload page with large files on a slow link. Each file's progress bar
// moves in order while sending, "Parsing and storing…" follows, then each file's detected
// format and the runs; a broken file's error names the file and the line. The page lists every
// format and links docs/formats.md.
// Usage: node e2e/upload_progress.mjs <base-url> <big-csv> <small-file> <broken-csv>
import { run, step } from './lib.mjs';

const [base, big, small, broken] = process.argv.slice(2);
if (!base || !big || !small || !broken) {
  console.error('usage: node e2e/upload_progress.mjs <base-url> <big-csv> <small-file> <broken-csv>');
  process.exit(2);
}
await run(async (page, errors) => {
  await page.goto(`${base}/upload`);
  await page.waitForSelector('body[data-hydrated="true"]');
  const formats = await page.$$eval('#format-list tbody tr td:first-child code', (cs) => cs.map((c) => c.textContent));
  for (const f of ['csv', 'json', 'netperf', 'hackbench', 'sysbench', 'lkp', 'lkp-stats', 'lkp-matrix', 'mmtests']) {
    if (!formats.includes(f)) throw new Error(`format ${f} not listed: ${formats}`);
  }
  const docs = await page.getAttribute('#formats + p a', 'href');
  const text = await (await page.request.get(`${base}${docs}`)).text();
  if (!text.includes('## Generic CSV')) throw new Error(`${docs} is not the format reference`);
  step(`the page lists ${formats.length} formats and links ${docs}`);

  // A slow uplink (8 MiB/s), so that the bars are seen moving.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 8 * 1024 * 1024 });
  await page.fill('#machine', 'progress-box');
  await page.fill('#kernel', '6.9.0');
  await page.setInputFiles('#file', [big, small]);
  await page.click('#upload-submit');
  // Watch the bars: the first file is seen part-sent while the second has not started.
  await page.waitForFunction(() => {
    const bars = [...document.querySelectorAll('li.file-progress progress')];
    return bars.length === 2 && bars[0].value > 0 && bars[0].value < bars[0].max && bars[1].value === 0;
  }, null, { polling: 20 });
  const partway = await page.$$eval('li.file-progress .pct', (ps) => ps.map((p) => p.textContent));
  step(`while sending: ${partway.join(', ')}`);
  await page.waitForSelector('#upload-phase');
  await page.waitForSelector('#upload-result', { timeout: 60000 });
  const sent = await page.$$eval('li.file-progress .pct', (ps) => ps.map((p) => p.textContent));
  if (sent.some((p) => p !== '100%')) throw new Error(`after sending: ${sent}`);
  const rows = await page.$$eval('#upload-files tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  if (rows.length !== 2 || rows[0][1] !== 'csv' || rows[1][1] !== 'netperf') throw new Error(`files shown: ${JSON.stringify(rows)}`);
  const result = await page.textContent('#upload-result');
  step(`then: ${result.trim()}; files: ${rows.map((r) => `${r[0]} (${r[1]})`).join(', ')}`);
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });

  // A broken file: the error names it and the line. Its 422 is the answer expected here, not
  // a failure of the page.
  const before = errors.length;
  await page.setInputFiles('#file', broken);
  await page.click('#upload-submit');
  await page.waitForSelector('#upload-error');
  const error = await page.textContent('#upload-error');
  if (!error.includes('broken.csv') || !error.includes('line 3')) throw new Error(`error shown: ${error}`);
  const expected = (e) => /HTTP 422 for .*\/api\/v1\/upload$/.test(e) || /status of 422/.test(e);
  const unexpected = errors.splice(before).filter((e) => !expected(e));
  errors.push(...unexpected);
  step(`a broken file: ${error}`);
});
