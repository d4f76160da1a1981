// SPDX-License-Identifier: GPL-3.0-or-later
// Browser test: the trend page in real headless Chromium. Select a commit with the keyboard,
// mark it bad with `b`, and see the chart, the list of marks and the ASCII chart update.
// Usage: node e2e/trend.mjs <base-url> <trend-path>
import { run, step, watch } from './lib.mjs';

const [base, path] = process.argv.slice(2);
if (!base || !path) {
  console.error('usage: node e2e/trend.mjs <base-url> <trend-path>');
  process.exit(2);
}
await run(async (_unused, errors, browser) => {
  // A context with the clipboard allowed, for the report's copy button.
  const context = await browser.newContext();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  const page = await context.newPage();
  watch(page, errors);
  await page.goto(`${base}${path}`);
  await page.waitForSelector('#trend-svg');
  await page.waitForSelector('body[data-hydrated="true"]');
  const points = await page.$$eval('#trend-svg circle.point', (cs) => cs.length);
  if (points !== 10) throw new Error(`${points} points drawn`);
  const changes = await page.textContent('#trend-changes');
  if (!/regression/.test(changes)) throw new Error(`change points listed: ${changes}`);
  // Each change point says how sure it is: the change's 95 % interval and its p-value.
  if (!/95 % [-+][0-9.]+% to [-+][0-9.]+%/.test(changes) || !/p [<0-9]/.test(changes)) {
    throw new Error(`change points without their interval and evidence: ${changes}`);
  }
  step(`chart with ${points} commits; change points: ${changes.trim()}`);

  // The picture is plotters' SVG drawn by the server; each point has a tooltip over it.
  const picture = async () => decodeURIComponent((await page.getAttribute('.chart-box img.trend-chart', 'src')).split(',').slice(1).join(','));
  const svg = await picture();
  if (!svg.startsWith('<svg') || !svg.includes('Throughput_Mbps')) throw new Error(`chart image: ${svg.slice(0, 200)}`);
  // The layer of tooltips lies exactly over the picture (else they miss their points).
  const [img, layer] = await page.evaluate(() => ['.chart-box img.trend-chart', '#trend-svg'].map((s) => {
    const r = document.querySelector(s).getBoundingClientRect();
    return [r.x, r.y, r.width, r.height];
  }));
  if (img.some((v, i) => Math.abs(v - layer[i]) > 0.5)) throw new Error(`picture at ${img}, tooltips at ${layer}`);
  const tip = await page.textContent('#trend-svg circle.point[data-x="2"] title');
  if (!/kernel build-/.test(tip) || !/n=15/.test(tip)) throw new Error(`tooltip: ${tip}`);
  step(`the server drew the chart; a point's tooltip: ${tip.split('\n')[0]}`);

  // j moves the selection; five times from the first commit is the sixth.
  for (let i = 0; i < 5; i++) await page.keyboard.press('j');
  await page.waitForSelector('#trend-svg circle.point.selected[data-x="5"]');
  await page.keyboard.press('k');
  await page.waitForSelector('#trend-svg circle.point.selected[data-x="4"]');
  await page.keyboard.press('j');
  await page.waitForSelector('#trend-svg circle.point.selected[data-x="5"]');
  step('j/k move the selection');

  await page.keyboard.press('b');
  await page.waitForSelector('#trend-svg circle.point.bad[data-x="5"]');
  await page.waitForSelector('#trend-marks li[data-x="5"][data-mark="bad"]');
  const mark = await page.textContent('#trend-selected-mark');
  if (mark !== 'bad') throw new Error(`the selected commit reads mark ${mark}`);
  if (!(await picture()).includes('bisect bad')) throw new Error('the redrawn chart has no bad marker');
  step('b marked the selected commit bad: chart and list updated');

  await page.click('#show-ascii');
  const ascii = await page.textContent('#trend-ascii');
  if (!ascii.includes('O') || !ascii.includes('[O] bisect-bad  sample')) throw new Error(`ASCII chart:\n${ascii}`);
  step('the ASCII chart shows the bad samples');

  // The regression report of the change point: shown, then copied.
  await page.click('#show-report');
  await page.waitForSelector('#trend-report');
  const report = await page.textContent('#trend-report');
  if (!report.includes('%stddev') || !report.includes('Throughput_Mbps')) throw new Error(`report:\n${report}`);
  await page.click('#copy-report');
  await page.waitForFunction(() => (document.querySelector('#report-status')?.textContent ?? '').includes('Copied'));
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  if (copied !== report) throw new Error(`copied:\n${copied}`);
  step('the report is shown and copied');

  // Zooming asks the server for the window (commits 5 to 9 of 10); selecting a commit the
  // chart does not draw fetches that commit.
  await page.click('#show-svg');
  await page.$eval('#range-from', (el) => { el.value = '5'; el.dispatchEvent(new Event('change', { bubbles: true })); });
  await page.waitForFunction(() => document.querySelectorAll('#trend-svg circle.point').length === 5);
  const firstDrawn = await page.getAttribute('#trend-svg circle.point', 'data-x');
  if (firstDrawn !== '5') throw new Error(`the zoomed chart starts at commit ${firstDrawn}`);
  await page.keyboard.press('k');
  await page.waitForSelector('#trend-selected[data-x="4"]');
  if (await page.$('#trend-svg circle.point[data-x="4"]')) throw new Error('commit 4 is drawn outside the window');
  step('zoomed to commits 5-9 (drawn by the server); commit 4 selected and fetched');

  // Another machine on the same commit axis.
  await page.goto(`${base}${path}&also=lkp-skl-d01`);
  await page.waitForSelector('body[data-hydrated="true"]');
  await page.waitForSelector('#trend-svg circle.peer');
  const peers = await page.$$eval('#trend-svg circle.peer', (cs) => cs.length);
  const meta = await page.textContent('#trend .meta');
  if (peers !== 5 || !meta.includes('with lkp-skl-d01')) throw new Error(`${peers} points of the other machine; ${meta}`);
  if (!(await picture()).includes('lkp-skl-d01')) throw new Error('no legend for the other machine');
  step(`a second machine drawn on the same axis (${peers} points)`);
});
