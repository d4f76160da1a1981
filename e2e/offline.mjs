// SPDX-License-Identifier: GPL-3.0-or-later
// Browser test: each offline report (format=html) opens in Chromium with the network off and
// every request refused, and shows its content without asking for anything.
// Usage: node e2e/offline.mjs <file.html> <expected text> [<file.html> <expected text> ...]
import { readFileSync } from 'node:fs';
import { launch, step } from './lib.mjs';

const args = process.argv.slice(2);
if (args.length < 2 || args.length % 2) {
  console.error('usage: node e2e/offline.mjs <file.html> <expected text> ...');
  process.exit(2);
}
const browser = await launch();
try {
  for (let i = 0; i < args.length; i += 2) {
    const [file, expected] = [args[i], args[i + 1]];
    const context = await browser.newContext({ offline: true });
    const requests = [];
    await context.route('**/*', (route) => { requests.push(route.request().url()); route.abort(); });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.setContent(readFileSync(file, 'utf8'), { waitUntil: 'load' });
    const text = await page.textContent('body');
    if (!text.includes(expected)) throw new Error(`${file}: no ${JSON.stringify(expected)}`);
    const scripts = await page.$$eval('script', (s) => s.length);
    const svgs = await page.$$eval('svg', (s) => s.length);
    if (scripts !== 0) throw new Error(`${file}: ${scripts} scripts`);
    if (requests.length) throw new Error(`${file}: asked for ${requests.join(', ')}`);
    if (errors.length) throw new Error(`${file}: ${errors.join('; ')}`);
    step(`${file.split('/').pop()}: offline, no request, ${svgs} inline SVG, shows ${JSON.stringify(expected)}`);
    await context.close();
  }
  console.log('e2e: ok');
} catch (e) {
  console.error(`e2e: FAILED: ${e.message}`);
  process.exitCode = 1;
} finally {
  await browser.close();
}
