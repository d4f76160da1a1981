// SPDX-License-Identifier: GPL-3.0-or-later
// Browser test: upload a CSV through the form in real headless Chromium.
// Usage: node e2e/upload.mjs <base-url> <csv-file>
// Run by server/tests/it/browser.rs, which starts the server; exits non-zero on any failure.
import { run, step } from './lib.mjs';

const [base, csvFile] = process.argv.slice(2);
if (!base || !csvFile) {
  console.error('usage: node e2e/upload.mjs <base-url> <csv-file>');
  process.exit(2);
}
await run(async (page) => {
  await page.goto(`${base}/upload`);
  // The App sets data-hydrated from an Effect, which only runs once the WASM has hydrated.
  await page.waitForSelector('body[data-hydrated="true"]');
  step('upload page hydrated');

  // The curl command follows the fields as the user types: only live WASM can do that.
  await page.fill('#machine', 'e2e box');
  await page.fill('#kernel', '6.9.0-rc1');
  await page.fill('#benchmark', 'e2e-netperf');
  await page.waitForFunction(() => {
    const t = document.querySelector('#curl')?.textContent ?? '';
    return t.includes("'machine=e2e box'") && t.includes('kernel=6.9.0-rc1') && t.includes('benchmark=e2e-netperf');
  });
  step('curl command updated client-side: ' + (await page.textContent('#curl')));

  await page.setInputFiles('#file', csvFile);
  // The hydrated page sends by XHR and shows the answer in place: the file, its detected
  // format, the runs, and a link to the upload.
  await page.click('#upload-submit');
  await page.waitForSelector('#upload-result');
  const result = await page.textContent('#upload-result');
  if (!/Stored 1 runs with 6 samples/.test(result)) throw new Error(`unexpected upload result: ${result}`);
  const format = await page.textContent('#upload-files td.format');
  if (format !== 'csv') throw new Error(`detected format shown: ${format}`);
  await Promise.all([page.waitForURL(/\/uploads\/\d+$/), page.click('#upload-link')]);
  step(`uploaded: ${result}`);

  // The new run is listed on the dashboard (the CSV's benchmark column overrides the field)...
  await page.goto(`${base}/`);
  await page.waitForSelector('body[data-hydrated="true"]');
  const row = page.locator('#recent-runs tr.run-row', { hasText: 'e2e box' });
  await row.waitFor();
  const rowText = await row.textContent();
  if (!rowText.includes('netperf-tcp') || !rowText.includes('6.9.0-rc1')) throw new Error(`run row lacks fields: ${rowText}`);
  step('dashboard lists the run');

  // ...and following its link is a client-side navigation that renders the run page.
  await row.locator('a').first().click();
  await page.waitForURL(/\/runs\/\d+$/);
  await page.waitForSelector('#run-machine');
  const machine = await page.textContent('#run-machine');
  if (machine !== 'e2e box') throw new Error(`run page shows machine ${machine}`);
  step('run page shows the run');

});
