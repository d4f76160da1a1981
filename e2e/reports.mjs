// SPDX-License-Identifier: GPL-3.0-or-later
// Browser test (issue 56): the robot's reports as a maintainer reaches them. On /reports the
// search form narrows the list (by subsystem, then by date); a report's page shows the mail's
// table exactly as `GET /api/v1/reports/{id}?format=text` prints it (the browser's own text of
// the <pre>), links the mail on lore, draws the KPI over the robot's reports and links the
// commit's page, which lists the report. In both themes, at 1280 and 400 px, nothing is wider
// than the window (the table scrolls inside its box).
// First, a mail through the upload form: the page says what it stored, with links.
// A mail with ASCII plots through the form: the page links the upload of its samples as runs.
// Usage: node e2e/reports.mjs <base-url> <subsystem> <rows> <mail-file> <mail-with-plots>
// Run by server/tests/it/browser.rs, which starts the server and uploads the mails.
import { run, step, watch } from './lib.mjs';

const [base, subsystem, expected, mail, plotted] = process.argv.slice(2);
if (!plotted) {
  console.error('usage: node e2e/reports.mjs <base-url> <subsystem> <rows> <mail-file> <mail-with-plots>');
  process.exit(2);
}

async function noOverflow(page, what) {
  const { scroll, client, widest } = await page.evaluate(() => {
    const root = document.documentElement;
    let widest = '';
    let right = 0;
    for (const el of document.querySelectorAll('body *')) {
      if (el.closest('pre, table')) continue;
      const r = el.getBoundingClientRect();
      if (r.right > right) { right = r.right; widest = `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''} (right edge ${Math.round(r.right)} px)`; }
    }
    return { scroll: root.scrollWidth, client: root.clientWidth, widest };
  });
  if (scroll > client) throw new Error(`${what} overflows: ${scroll} px wide in ${client} px; widest: ${widest}`);
}

await run(async (first, errors, browser) => {
  // A mail through the form (the server has it already: nothing new, every section listed).
  await first.goto(`${base}/upload`);
  await first.waitForSelector('body[data-hydrated="true"]');
  await first.setInputFiles('#file', mail);
  await first.click('#upload-submit');
  await first.waitForSelector('#upload-result');
  const said = await first.textContent('#upload-result');
  if (!/Stored 7 report section\(s\) of the robot's mails, 0 new/.test(said)) throw new Error(`the form said: ${said}`);
  const links = await first.$$eval('#upload-reports a[href^="/reports/"]', (a) => a.length);
  if (links !== 7) throw new Error(`the form lists ${links} reports`);
  step(`the upload form took a mail: ${said.trim()}`);
  // A mail with plots: its samples are runs, in an upload the page links.
  await first.setInputFiles('#file', plotted);
  await first.click('#upload-submit');
  await first.waitForSelector('#upload-plot-runs a[href^="/uploads/"]');
  const plotLinks = await first.$$eval('#upload-plot-runs a[href^="/uploads/"]', (a) => a.map((x) => x.getAttribute('href')));
  const plottedReport = await first.$eval('#upload-reports a[href^="/reports/"]', (a) => a.getAttribute('href'));
  if (plotLinks.length !== 1) throw new Error(`the form links ${plotLinks.length} uploads of plots' samples`);
  await Promise.all([first.waitForURL(/\/uploads\/\d+$/), first.click('#upload-plot-runs a')]);
  const uploadPage = await first.textContent('main');
  if (!uploadPage.includes('lkp-mail:aim7')) throw new Error(`the plots' upload page does not name lkp-mail:aim7`);
  step(`the form linked the plots' samples as runs: ${plotLinks[0]}`);
  // Its report's page links each plotted metric's trend: the base marked good, the tested
  // commit bad.
  await first.goto(`${base}${plottedReport}`);
  const trends = await first.$$eval('#report-plot-runs a[href^="/trend?benchmark=lkp-mail"]', (a) => a.length);
  if (trends < 1) throw new Error(`report ${plottedReport} links no trend of its plots' runs`);
  await Promise.all([first.waitForURL(/\/trend\?/), first.click('#report-plot-runs a')]);
  await first.waitForSelector('#trend-marks li[data-mark="good"]');
  await first.waitForSelector('#trend-marks li[data-mark="bad"]');
  step(`report ${plottedReport} links ${trends} trends of its plots' runs; the first shows a good and a bad mark`);
  for (const scheme of ['light', 'dark']) {
    for (const width of [1280, 400]) {
      const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
      const page = await context.newPage();
      watch(page, errors);
      const what = `${scheme}, ${width} px`;

      // The list, then the search form by subsystem.
      await page.goto(`${base}/reports`, { waitUntil: 'domcontentloaded' });
      const all = await page.$$eval('tr.report-row', (rows) => rows.length);
      if (all < Number(expected)) throw new Error(`${what}: ${all} reports listed`);
      await page.fill('#report-filter input[name=subsystem]', subsystem);
      await Promise.all([page.waitForURL(/subsystem=/), page.click('#report-filter button[type=submit]')]);
      const rows = await page.$$eval('tr.report-row', (r) => r.length);
      if (String(rows) !== expected) throw new Error(`${what}: ${rows} reports of [${subsystem}], expected ${expected}`);
      const kept = await page.inputValue('#report-filter input[name=subsystem]');
      if (kept !== subsystem) throw new Error(`${what}: the form forgot the search (${kept})`);
      await noOverflow(page, `${what}, list`);

      // A report's page: the mail's table as the API prints it, the lore link, the chart.
      await Promise.all([page.waitForURL(/\/reports\/\d+$/), page.click('tr.report-row td a[href^="/reports/"]')]);
      const id = page.url().split('/').pop();
      const shown = await page.$eval('#report-text', (pre) => pre.textContent);
      const text = await page.evaluate(async (id) => (await fetch(`/api/v1/reports/${id}?format=text`)).text(), id);
      if (shown !== text) throw new Error(`${what}: report ${id}'s table is not the mail's text (${shown.length} against ${text.length} characters)`);
      if (!shown.startsWith('commit: \n')) throw new Error(`${what}: the table starts ${JSON.stringify(shown.slice(0, 20))}`);
      const lore = await page.$eval('#report-lore', (a) => a.href);
      if (!lore.startsWith('https://lore.kernel.org/r/')) throw new Error(`${what}: lore link ${lore}`);
      const dots = await page.$$eval('#report-trend circle', (c) => c.length);
      if (dots < 1) throw new Error(`${what}: the KPI's chart has no point`);
      const colour = await page.$eval('#report-trend circle.trend-this', (c) => getComputedStyle(c).fill);
      if (!colour || colour === 'none' || colour === 'rgb(0, 0, 0)') throw new Error(`${what}: this report's point is not coloured (${colour})`);
      await noOverflow(page, `${what}, report ${id}`);

      // Its commit's page lists it.
      await Promise.all([page.waitForURL(/\/commits\//), page.click('#report-commits li:last-child a')]);
      const listed = await page.$$eval('#commit-tested tr.report-row', (r) => r.map((tr) => tr.dataset.reportId));
      if (!listed.includes(id)) throw new Error(`${what}: the commit's page lists ${listed}, not report ${id}`);
      await noOverflow(page, `${what}, commit page`);
      step(`${what}: ${all} reports, ${rows} of [${subsystem}]; report ${id}'s table is the mail's (${shown.length} characters); ${dots} points on its KPI chart; its commit lists it`);
      await context.close();
    }
  }
});
