// SPDX-License-Identifier: GPL-3.0-or-later
// Browser test: an admin signed in corrects a run's machine on its page and deletes an upload
// on its page, each after a confirmation.
// Usage: node e2e/admin.mjs <base-url> <admin-token>
import { run, step } from './lib.mjs';

const [base, token] = process.argv.slice(2);
if (!base || !token) {
  console.error('usage: node e2e/admin.mjs <base-url> <admin-token>');
  process.exit(2);
}
await run(async (page) => {
  const questions = [];
  page.on('dialog', (d) => { questions.push(d.message()); d.accept(); });
  await page.goto(`${base}/signin`);
  await page.waitForSelector('body[data-hydrated="true"]');
  await page.fill('#signin-token', token);
  await Promise.all([page.waitForNavigation(), page.click('#signin-submit')]);
  await page.waitForSelector('#signed-in');

  await page.goto(`${base}/runs/2`);
  await page.waitForSelector('body[data-hydrated="true"]');
  await page.waitForSelector('#correct-run');
  await page.fill('#correct-machine', 'm1');
  await Promise.all([page.waitForNavigation(), page.click('#correct-submit')]);
  await page.waitForFunction(() => document.querySelector('#run-machine')?.textContent === 'm1');
  if (!questions[0]?.includes('Correct run #2')) throw new Error(`asked: ${questions}`);
  step('corrected run 2 to machine m1 after a confirmation');

  await page.goto(`${base}/uploads/1`);
  await page.waitForSelector('body[data-hydrated="true"]');
  await page.waitForSelector('#delete-upload');
  await Promise.all([page.waitForNavigation(), page.click('#delete-upload')]);
  if (!questions[1]?.includes('Delete upload #1')) throw new Error(`asked: ${questions}`);
  if (new URL(page.url()).pathname !== '/') throw new Error(`after deleting: ${page.url()}`);
  step('deleted upload 1 after a confirmation');
});
