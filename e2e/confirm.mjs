// SPDX-License-Identifier: GPL-3.0-or-later
// Browser test: an alert awaiting confirmation shows its pending reruns; a simulated robot
// (this script, through the API) runs them, and the page shows the alert confirmed.
// Usage: node e2e/confirm.mjs <base-url>
import { run, step } from './lib.mjs';

const [base] = process.argv.slice(2);
if (!base) {
  console.error('usage: node e2e/confirm.mjs <base-url>');
  process.exit(2);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

await run(async (page) => {
  await page.goto(`${base}/alerts`);
  await page.waitForSelector('body[data-hydrated="true"]');
  const summary = page.locator('article.alert-summary[data-status="awaiting-confirmation"]');
  await summary.waitFor();
  const reruns = await summary.locator('.pending-reruns li.rerun').allTextContents();
  if (reruns.length !== 2) throw new Error(`pending reruns: ${JSON.stringify(reruns)}`);
  for (const r of reruns) {
    if (!/^[0-9a-f]{12}: 0 of \d+ runs — confirm the -6\.2 % step of netperf\.Throughput_Mbps on lkp-bdw-de1: rerun the (last good|first bad) commit/.test(r.trim())) {
      throw new Error(`a pending rerun reads: ${r}`);
    }
  }
  const hint = await summary.locator('.pending-reruns p').textContent();
  if (!hint.includes('GET /api/v1/work?machine=lkp-bdw-de1')) throw new Error(`hint: ${hint}`);
  step(`awaiting confirmation, pending: ${reruns.map((r) => r.split(' — ')[0]).join('; ')}`);

  // The robot: what the server asks of lkp-bdw-de1, run and uploaded.
  const work = await (await fetch(`${base}/api/v1/work?machine=lkp-bdw-de1`)).json();
  let uploaded = 0;
  for (const r of work.requests) {
    const level = r.reason.includes('first bad') ? 2345 : 2500;
    for (let k = 0; k < r.runs; k++) {
      let csv = 'kernel,commit,metric,iteration,value\n';
      for (let it = 1; it <= 5; it++) {
        csv += `robot-${r.id}-${k},${r.commit},Throughput_Mbps,${it},${(level * (1 + ((k * 7 + it * 3) % 11 - 5) / 2500)).toFixed(3)}\n`;
      }
      const res = await fetch(`${base}/api/v1/upload?request=${r.id}`, { method: 'POST', body: csv });
      if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
      uploaded++;
    }
  }
  step(`the robot uploaded ${uploaded} reruns of ${work.requests.length} requests`);

  // Watch the page until the reruns have been judged.
  let status = '';
  for (let i = 0; i < 100 && status !== 'new'; i++) {
    await sleep(200);
    await page.goto(`${base}/alerts?status=all`);
    await page.waitForSelector('body[data-hydrated="true"]');
    status = await page.locator('article.alert-summary').first().getAttribute('data-status');
  }
  if (status !== 'new') throw new Error(`still ${status}`);
  const article = page.locator('article.alert-summary').first();
  if (await article.locator('.pending-reruns').count() !== 0) throw new Error('reruns still pending');
  const confirmation = (await article.locator('p.confirmation').textContent()).trim();
  if (!confirmation.startsWith('Confirmation: confirmed by reruns (1 of 1 metric reproduced)')) {
    throw new Error(`confirmation: ${confirmation}`);
  }
  step(`confirmed: ${confirmation.slice(0, 90)}…`);
});
