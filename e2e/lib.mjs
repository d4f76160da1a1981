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
