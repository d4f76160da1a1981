// Browser test: the trend page in real headless Chromium. Select a commit with the keyboard,
// mark it bad with `b`, and see the chart, the list of marks and the ASCII chart update.
// Usage: node e2e/trend.mjs <base-url> <trend-path>
import { run, step } from './lib.mjs';

const [base, path] = process.argv.slice(2);
if (!base || !path) {
  console.error('usage: node e2e/trend.mjs <base-url> <trend-path>');
  process.exit(2);
}
await run(async (page) => {
  await page.goto(`${base}${path}`);
  await page.waitForSelector('#trend-svg');
  await page.waitForSelector('body[data-hydrated="true"]');
  const points = await page.$$eval('#trend-svg circle.point', (cs) => cs.length);
  if (points !== 10) throw new Error(`${points} points drawn`);
  const changes = await page.textContent('#trend-changes');
  if (!/regression/.test(changes)) throw new Error(`change points listed: ${changes}`);
  step(`chart with ${points} commits; change points: ${changes.trim()}`);

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
  step('b marked the selected commit bad: chart and list updated');

  await page.click('#show-ascii');
  const ascii = await page.textContent('#trend-ascii');
  if (!ascii.includes('O') || !ascii.includes('[O] bisect-bad  sample')) throw new Error(`ASCII chart:\n${ascii}`);
  step('the ASCII chart shows the bad samples');

});
