// SPDX-License-Identifier: GPL-3.0-or-later
// What every browser script shares: Chromium, a step logger, and a page watcher that turns page
// errors, console errors and HTTP errors into test failures.
import { chromium } from 'playwright-core';

export async function launch() {
  return chromium.launch({
    executablePath: process.env.PERFLINE_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export const step = (msg) => console.log(`e2e: ${msg}`);

/// Collects what goes wrong on `page` into `errors`.
export function watch(page, errors) {
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console error: ${m.text()}`); });
  page.on('response', (r) => { if (r.status() >= 400) errors.push(`HTTP ${r.status()} for ${r.url()}`); });
  page.setDefaultTimeout(30000);
}

/// Runs `body(page, errors, browser)` in a fresh Chromium and reports `e2e: ok` or the failure
/// (with what the page reported) and a non-zero exit code.
export async function run(body) {
  const browser = await launch();
  const errors = [];
  try {
    const page = await browser.newPage();
    watch(page, errors);
    await body(page, errors, browser);
    if (errors.length) throw new Error(errors.join('\n'));
    console.log('e2e: ok');
  } catch (e) {
    console.error(`e2e: FAILED: ${e.message}`);
    if (errors.length) console.error(errors.join('\n'));
    process.exitCode = 1;
  } finally {
    await browser.close();
  }
}
