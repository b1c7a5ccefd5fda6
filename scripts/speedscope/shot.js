const { chromium } = require('playwright-core');
(async () => {
  // node shot.js SPEEDSCOPE_INDEX_HTML PROFILE SCREENSHOT: load PROFILE through
  // speedscope's file input, print its title and first lines, screenshot.
  const [, , page, profile, out] = process.argv;
  const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--allow-file-access-from-files'] });
  const p = await b.newPage({ viewport: { width: 1200, height: 500 } });
  await p.goto('file://' + page);
  await p.setInputFiles('input[type=file]', profile);
  await p.waitForFunction(() => /\.json/.test(document.title), null, { timeout: 20000 }).catch(() => {});
  await p.waitForTimeout(1000);
  const title = await p.title();
  const text = await p.evaluate(() => document.body.innerText.slice(0, 300));
  await p.screenshot({ path: out });
  console.log(JSON.stringify({ title, text }));
  // speedscope shows no counters: the parallelism is a thread of its own
  // ("parallelism (threads on CPU)"); 'n' goes to the next thread.
  for (let i = 0; i < 64; i++) {
    const now = await p.evaluate(() => document.body.innerText.slice(0, 300));
    if (/parallelism \(threads on CPU\)/.test(now)) {
      await p.screenshot({ path: out.replace(/\.png$/, '') + '-parallelism.png' });
      console.log(JSON.stringify({ parallelism: now }));
      break;
    }
    await p.keyboard.press('n');
    await p.waitForTimeout(200);
  }
  await b.close();
})().catch(e => { console.error(e); process.exit(1); });
