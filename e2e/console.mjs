// SPDX-License-Identifier: GPL-3.0-or-later
// Browser test of the admin's console: an admin signs in, follows the header's link, makes a
// token (shown once) and revokes it, edits the alert rules and sees the preview of what they
// would have raised, then saves them, and searches the audit trail for all of it. Then each
// console page at 400 px: nothing wider than the window.
// Usage: node e2e/console.mjs <base-url> <admin-token>
import { run, step } from './lib.mjs';

const [base, token] = process.argv.slice(2);
if (!base || !token) {
  console.error('usage: node e2e/console.mjs <base-url> <admin-token>');
  process.exit(2);
}

const hydrated = (page) => page.waitForSelector('body[data-hydrated="true"]');

await run(async (page, _errors, browser) => {
  const questions = [];
  page.on('dialog', (d) => { questions.push(d.message()); d.accept(); });
  await page.goto(`${base}/signin?next=/`);
  await hydrated(page);
  await page.fill('#signin-token', token);
  await Promise.all([page.waitForNavigation(), page.click('#signin-submit')]);
  await page.waitForSelector('#signed-in');
  await Promise.all([page.waitForNavigation(), page.click('#admin-link')]);
  if (new URL(page.url()).pathname !== '/admin') throw new Error(`the header's link led to ${page.url()}`);
  await hydrated(page);
  step('signed in; the header links to /admin');

  // A token, made with the mark scope: its secret shown once, then listed without it.
  await page.fill('#token-name', 'robot-e2e');
  await page.uncheck('#token-scope-upload');
  await page.check('#token-scope-mark');
  await page.fill('#token-days', '30');
  await page.click('#create-token-submit');
  await page.waitForSelector('#new-token');
  const secret = await page.inputValue('#new-token');
  if (!/^perfline_[A-Za-z0-9]{43}$/.test(secret)) throw new Error(`the new token: ${secret}`);
  const said = await page.textContent('#create-token-status');
  if (!said.includes("'robot-e2e'") || !said.includes('mark')) throw new Error(`status: ${said}`);
  await page.goto(`${base}/admin`);
  await hydrated(page);
  const row = page.locator('tr[data-token="robot-e2e"]');
  const cells = await row.locator('td').allTextContents();
  if (cells[1] !== 'mark' || cells[4] !== 'never') throw new Error(`row: ${cells}`);
  if ((await page.content()).includes(secret)) throw new Error('the list shows the secret');
  step('made token robot-e2e (mark); its secret was shown once, the list has it without');

  await Promise.all([page.waitForNavigation(), row.locator('button.revoke-token').click()]);
  if (!questions[0]?.includes("Revoke token 'robot-e2e'")) throw new Error(`asked: ${questions}`);
  await hydrated(page);
  await page.waitForSelector('tr.revoked[data-token="robot-e2e"]');
  // Asked from here, not the page: the page would log the expected 401 as an error.
  const status = (await fetch(`${base}/api/v1/runs`, { headers: { authorization: `Bearer ${secret}` } })).status;
  if (status !== 401) throw new Error(`the revoked token got ${status}`);
  step('revoked it after a confirmation: marked revoked, and refused');

  // The rules: edited, previewed over the stored series, saved.
  await page.click('a[href="/admin/rules"]');
  await page.waitForURL(`${base}/admin/rules`);
  await hydrated(page);
  await page.fill('#rules-json', JSON.stringify([{ benchmark: 'netperf', metric: '*Throughput*', min_change_pct: 3 }], null, 2));
  await page.click('#rules-preview');
  await page.waitForSelector('#rules-preview-summary');
  const summary = await page.textContent('#rules-preview-summary');
  if (!/^\d+ alerts in the last 90 days/.test(summary)) throw new Error(`preview: ${summary}`);
  // 5,000 keys of LKP jobs: the examined series are capped, and the page says so.
  if (!summary.includes('Only the first 400 were examined (the cap of 400')) throw new Error(`preview: ${summary}`);
  const raised = await page.locator('#rules-preview-result tbody tr').allTextContents();
  if (!raised.some((r) => r.includes('Throughput') && r.includes('regression') && r.includes('rule 1'))) throw new Error(`${summary}; raised: ${raised}`);
  step(`preview: ${summary.split(':')[0]}; the throughput regression under rule 1`);
  await page.fill('#rules-json', JSON.stringify([{ benchmark: 'netperf', metric: '*Throughput*', min_change_pct: 50 }]));
  await page.click('#rules-preview');
  await page.waitForFunction(() => document.querySelector('#rules-preview-summary')?.textContent.startsWith('0 alerts'));
  step('with a 50 % bar the preview raises nothing');
  await Promise.all([page.waitForNavigation(), page.click('#rules-save')]);
  if (!questions[1]?.includes('Replace the alert rules')) throw new Error(`asked: ${questions}`);
  await hydrated(page);
  const rules = await page.locator('#rules tbody tr').allTextContents();
  if (rules.length !== 1 || !rules[0].includes('min change 50 %')) throw new Error(`rules: ${rules}`);
  step('saved: the table shows the rule in force');

  // The audit trail, searched.
  await page.goto(`${base}/admin/audit`);
  await hydrated(page);
  await page.fill('#audit-actor', 'lead');
  await page.fill('#audit-action', 'token.revoke');
  await Promise.all([page.waitForNavigation(), page.click('#audit-submit')]);
  const lines = await page.locator('#audit tbody tr').allTextContents();
  if (lines.length !== 1 || !lines[0].includes('robot-e2e')) throw new Error(`search: ${lines}`);
  if (!new URL(page.url()).search.includes('action=token.revoke')) throw new Error(page.url());
  await page.fill('#audit-action', 'alert-rules');
  await Promise.all([page.waitForNavigation(), page.click('#audit-submit')]);
  const rulesLines = await page.locator('#audit tbody tr').allTextContents();
  if (rulesLines.length !== 1 || !rulesLines[0].includes('1 rule')) throw new Error(`search: ${rulesLines}`);
  step('the audit trail found the revocation and the rules replaced, by actor and action');

  // 400 px: no console page is wider than the window.
  const narrow = await browser.newContext({ viewport: { width: 400, height: 800 } });
  const cookies = await page.context().cookies();
  await narrow.addCookies(cookies);
  const small = await narrow.newPage();
  for (const path of ['/admin', '/admin/rules', '/admin/audit?actor=lead']) {
    await small.goto(`${base}${path}`);
    await small.waitForSelector('body[data-hydrated="true"]');
    await small.waitForSelector('#signed-in');
    const { scroll, client } = await small.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    if (scroll > client) throw new Error(`${path} at 400 px is ${scroll} px wide`);
  }
  await narrow.close();
  step('at 400 px no console page overflows');
});
