// SPDX-License-Identifier: GPL-3.0-or-later
// Browser test: the trend page of a token-mode Perfline. Signed out, the `b` key marks nothing
// and says why; signed in with a token (the sign-in page sets a session cookie), it marks;
// signing out takes the marking away again.
// Usage: node e2e/signin.mjs <base-url> <trend-path> <token>
import { run, step } from './lib.mjs';

const [base, path, token] = process.argv.slice(2);
if (!base || !path || !token) {
  console.error('usage: node e2e/signin.mjs <base-url> <trend-path> <token>');
  process.exit(2);
}
await run(async (page) => {
  const open = async () => {
    await page.goto(`${base}${path}`);
    await page.waitForSelector('#trend-svg');
    await page.waitForSelector('body[data-hydrated="true"]');
  };
  const selectSixth = async () => {
    for (let i = 0; i < 5; i++) await page.keyboard.press('j');
    await page.waitForSelector('#trend-svg circle.point.selected[data-x="5"]');
  };

  await open();
  await page.waitForSelector('#signin-link');
  await page.waitForSelector('#may-mark[data-may="no"]', { state: 'attached' });
  await selectSixth();
  await page.keyboard.press('b');
  await page.waitForFunction(() => (document.querySelector('#trend-status')?.textContent ?? '').includes('needs a sign-in'));
  if (await page.$('#trend-svg circle.point.bad')) throw new Error('marked while signed out');
  step(`signed out: b says "${(await page.textContent('#trend-status')).trim()}"`);

  await page.click('#signin-link');
  await page.waitForSelector('#signin-form');
  await page.fill('#signin-token', token);
  await Promise.all([page.waitForNavigation(), page.click('#signin-submit')]);
  const cookies = await page.context().cookies();
  const session = cookies.find((c) => c.name === 'perfline_session');
  if (!session || !session.httpOnly || session.sameSite !== 'Strict') throw new Error(`session cookie: ${JSON.stringify(session)}`);
  if (session.value.includes(token)) throw new Error('the cookie carries the token');
  step('signed in: an HttpOnly, SameSite=Strict session cookie');

  await open();
  await page.waitForSelector('#signed-in');
  const who = await page.textContent('#signed-in');
  if (!who.includes('bisect-bot')) throw new Error(`header says ${who}`);
  await page.waitForSelector('#may-mark[data-may="yes"]', { state: 'attached' });
  await selectSixth();
  await page.keyboard.press('b');
  await page.waitForSelector('#trend-svg circle.point.bad[data-x="5"]');
  step(`${who.trim()}: b marked the selected commit bad`);

  await Promise.all([page.waitForNavigation(), page.click('#signout')]);
  await page.waitForSelector('#signin-link');
  await open();
  await page.waitForSelector('#may-mark[data-may="no"]', { state: 'attached' });
  step('signed out again: the marking keys are off');
});
