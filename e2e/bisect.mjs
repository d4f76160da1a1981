// SPDX-License-Identifier: GPL-3.0-or-later
// Browser test: "Bisect" on an alert starts a bisection; a simulated robot (this script,
// through the API: next commit, runs uploaded) works it; the bisection page shows it end on
// the culprit, the tested commits and their verdicts.
// Usage: node e2e/bisect.mjs <base-url> <alert-id> <levels.json>
import { readFileSync } from 'node:fs';
import { run, step } from './lib.mjs';

const [base, alert, levelsFile] = process.argv.slice(2);
if (!levelsFile) {
  console.error('usage: node e2e/bisect.mjs <base-url> <alert-id> <levels.json>');
  process.exit(2);
}
const levels = JSON.parse(readFileSync(levelsFile, 'utf8'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

await run(async (page) => {
  await page.goto(`${base}/alerts?id=${alert}`);
  await page.waitForSelector('body[data-hydrated="true"]');
  await page.click('button.bisect-button');
  await page.waitForURL(/\/bisections\/\d+$/);
  const id = page.url().split('/').pop();
  await page.waitForSelector('#bisection-state');
  const state = (await page.textContent('#bisection-state')).trim();
  if (state !== 'running') throw new Error(`started ${state}`);
  const next = (await page.textContent('#bisection-next')).trim();
  if (!next.startsWith('Next: ')) throw new Error(`next: ${next}`);
  if (!(await page.$('#bisection-watch'))) throw new Error('a running bisection is not followed');
  step(`bisection ${id} started from alert ${alert}: ${next.split(' — ')[0]}`);

  // The robot.
  let runs = 0;
  for (let round = 0; round < 200; round++) {
    const n = await (await fetch(`${base}/api/v1/bisections/${id}/next`, { method: 'POST' })).json();
    if (n.state !== 'running') break;
    if (!n.commit) { await sleep(100); continue; }
    for (let k = 0; k < n.runs; k++) {
      runs++;
      const level = levels[n.commit];
      let csv = 'kernel,commit,metric,iteration,value\n';
      for (let it = 1; it <= 5; it++) {
        csv += `robot-${runs},${n.commit},Throughput_Mbps,${it},${(level * (1 + ((runs * 7 + it * 3) % 11 - 5) / 2500)).toFixed(3)}\n`;
      }
      const res = await fetch(`${base}/api/v1/upload?bisection=${id}`, { method: 'POST', body: csv });
      if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
    }
  }
  step(`the robot ran ${runs} runs`);

  // The page follows the bisection by itself (no reload here): it ends on the culprit.
  let shown = 'running';
  for (let t = 0; t < 60 && shown === 'running'; t++) {
    await sleep(500);
    // (A check that meets the page reloading is tried again.)
    shown = await page.textContent('#bisection-state').then((s) => s.trim(), () => 'running');
  }
  await page.waitForSelector('body[data-hydrated="true"]');
  const done = (await page.textContent('#bisection-state')).trim();
  if (done !== 'done') throw new Error(`ended ${done}`);
  if (await page.$('#bisection-watch')) throw new Error('a finished bisection is still watched');
  const culprit = (await page.textContent('#bisection-culprit')).trim();
  const rows = await page.$$eval('#bisection-tested tbody tr', (rs) => rs.map((r) => r.className));
  if (!rows.includes('verdict-good') || !rows.includes('verdict-bad')) throw new Error(`rows: ${rows}`);
  const chart = await page.getAttribute('img.bisection-chart', 'src');
  if (!chart.includes('format=svg')) throw new Error(`chart: ${chart}`);
  console.log(`culprit=${culprit}`);
  step(`${culprit}; ${rows.length} tested commits`);
});
