// usage: node error_page.mjs PORT EVENT_ID [SCREENSHOT.png]
//
// Opens Spotlight's UI (served on 127.0.0.1:PORT) in Debian's headless
// Chromium as a person would: the Errors list, then the error EVENT_ID, and
// prints what its page shows as one JSON line:
//   {"url": ..., "type": the exception's type, "value": its value,
//    "frames": [the text of each frame, as listed: innermost first]}
// The page is saved as SCREENSHOT.png when given.  Exit 0 when the page
// opened; 1 with a one-line reason otherwise (no browser, no such error).
//
// Only 127.0.0.1 and localhost are reached: Spotlight's UI sends its own
// telemetry to sentry.io, and every other request is refused before it leaves.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [port, eventId, screenshot] = process.argv.slice(2);
if (!/^\d+$/.test(port || '') || !/^[0-9a-f]{32}$/.test(eventId || '')) {
  console.error('usage: node error_page.mjs PORT EVENT_ID [SCREENSHOT.png]');
  process.exit(2);
}
const modules = process.env.PM_NODE_MODULES || join(dirname(fileURLToPath(import.meta.url)), 'node_modules');
const { chromium } = createRequire(join(modules, 'noop.js'))('playwright-core');

// Whatever happens, the browser is gone within a bounded time.
const deadline = setTimeout(() => {
  console.error('error_page: no answer within 50 s');
  process.exit(1);
}, 50000);

let browser;
try {
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync', '--disable-crash-reporter',
           '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
  page.setDefaultTimeout(20000);
  await page.route('**/*', (route) => {
    const host = new URL(route.request().url()).hostname;
    return host === 'localhost' || host === '127.0.0.1' ? route.continue() : route.abort();
  });
  await page.goto(`http://localhost:${port}/telemetry/errors`);
  await page.locator(`a[href*="/errors/${eventId}/"]`).first().click();
  // The exception, then its frames: Spotlight lists them under the exception's heading.
  const exception = page.locator('ol > li').filter({ has: page.locator('h3 > strong') }).first();
  await exception.waitFor();
  const frames = exception.locator(':scope > ul > li');
  // None after a while: the page shows the exception without frames, which the caller reports.
  await frames.first().waitFor({ timeout: 15000 }).catch(() => {});
  const seen = {
    url: page.url(),
    type: await exception.locator('h3 > strong').innerText(),
    value: await exception.locator('h3 > pre').innerText(),
    frames: await frames.allInnerTexts(),
  };
  if (screenshot)
    await page.screenshot({ path: screenshot, fullPage: true });
  console.log(JSON.stringify(seen));
} catch (err) {
  console.error(`error_page: ${String(err.message || err).split('\n')[0]}`);
  process.exitCode = 1;
} finally {
  await browser?.close();
  clearTimeout(deadline);
}
