// SPDX-License-Identifier: GPL-3.0-or-later
// Browser test: the upload page with folders and a dropped file. An mmtests work/log folder is
// packed as a tar in the page; an LKP result directory sends its picked files with the machine,
// kernel and commit its job.yaml states; a folder dropped on the form is read and packed the
// same way; a file dropped on the form becomes the chosen file.
// Usage: node e2e/upload_folder.mjs <base-url> <mmtests-log-dir> <lkp-result-dir>
import { run, step } from './lib.mjs';

const [base, mmtests, lkp] = process.argv.slice(2);
if (!base || !mmtests || !lkp) {
  console.error('usage: node e2e/upload_folder.mjs <base-url> <mmtests-log-dir> <lkp-result-dir>');
  process.exit(2);
}
const filesShown = (page) => page.$$eval('#upload-files tbody tr', (trs) => trs.map((tr) => `${tr.cells[0].textContent} (${tr.cells[1].textContent})`));

await run(async (page) => {
  await page.goto(`${base}/upload`);
  await page.waitForSelector('body[data-hydrated="true"]');
  await page.waitForSelector('#folder[webkitdirectory]');
  await page.fill('#machine', 'folder-box');
  await page.setInputFiles('#folder', mmtests);
  await page.click('#upload-submit');
  await page.waitForSelector('#upload-result');
  let files = await filesShown(page);
  let result = await page.textContent('#upload-result');
  if (files.join() !== 'work-log.tar (mmtests)' || !/Stored 8 runs/.test(result)) throw new Error(`mmtests folder: ${files} / ${result}`);
  step(`an mmtests folder: ${result.trim()}; sent as ${files}`);

  await page.goto(`${base}/upload`);
  await page.waitForSelector('body[data-hydrated="true"]');
  await page.waitForSelector('#folder[webkitdirectory]');
  await page.setInputFiles('#folder', lkp);
  await page.click('#upload-submit');
  await page.waitForSelector('#upload-result');
  files = await filesShown(page);
  result = await page.textContent('#upload-result');
  if (files.join() !== 'netperf (lkp),job.yaml (facts)') throw new Error(`LKP folder sent ${files}`);
  step(`an LKP result directory: ${result.trim()}; sent ${files}`);

  // A whole folder dropped on the form, as the desktop drops it (Chromium's own drag and drop,
  // driven through the DevTools protocol): read in the page, then packed like a chosen one.
  await page.goto(`${base}/upload`);
  await page.waitForSelector('body[data-hydrated="true"]');
  await page.fill('#machine', 'dropped-folder-box');
  const box = await page.$eval('#upload-form', (f) => { const r = f.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + 20 }; });
  const cdp = await page.context().newCDPSession(page);
  const drag = { items: [], files: [mmtests], dragOperationsMask: 1 };
  for (const type of ['dragEnter', 'dragOver', 'drop']) await cdp.send('Input.dispatchDragEvent', { type, ...box, data: drag });
  await page.waitForFunction(() => /: \d+ files/.test(document.querySelector('#dropped-folder')?.textContent ?? ''));
  const note = await page.textContent('#dropped-folder');
  await page.click('#upload-submit');
  await page.waitForSelector('#upload-result, #upload-error');
  if (await page.$('#upload-error')) throw new Error(`dropped folder: ${await page.textContent('#upload-error')}`);
  files = await filesShown(page);
  result = await page.textContent('#upload-result');
  if (files.join() !== 'work-log.tar (mmtests)' || !/Stored 8 runs/.test(result)) throw new Error(`dropped mmtests folder: ${files} / ${result}`);
  step(`a dropped folder (${note.trim()}): ${result.trim()}; sent as ${files}`);

  // A file dropped on the form.
  await page.goto(`${base}/upload`);
  await page.waitForSelector('body[data-hydrated="true"]');
  const dt = await page.evaluateHandle(() => {
    const t = new DataTransfer();
    t.items.add(new File(['benchmark,metric,value\ndropped,x,1\ndropped,x,2\n'], 'dropped.csv', { type: 'text/csv' }));
    return t;
  });
  await page.dispatchEvent('#upload-form', 'drop', { dataTransfer: dt });
  const chosen = await page.$eval('#file', (i) => [...i.files].map((f) => f.name).join());
  if (chosen !== 'dropped.csv') throw new Error(`dropped file not chosen: ${chosen}`);
  await page.fill('#machine', 'drop-box');
  await page.fill('#kernel', '6.9.0');
  await page.click('#upload-submit');
  await page.waitForSelector('#upload-result, #upload-error');
  if (await page.$('#upload-error')) throw new Error(`dropped upload: ${await page.textContent('#upload-error')}`);
  files = await filesShown(page);
  if (files.join() !== 'dropped.csv (csv)') throw new Error(`dropped: ${files}`);
  step('a dropped file is the chosen file and uploads');
});
