import { serveBuilds, launchChromium } from './scripts/profile-lib.mjs';
const [server] = await serveBuilds();
const url = server.resolvedUrls.local[0];
const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
const errors = [];
page.on('pageerror', (e) => errors.push(String(e)));
page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
for (const [name, hash] of (process.env.SHOTS ?? 'default:').split(',').map((s) => s.split(':'))) {
  await page.goto(url + (hash ? '#' + hash : ''));
  await page.waitForTimeout(2500);
  await page.screenshot({ path: `/tmp/shot-${name}.png`, fullPage: false });
}
console.log('errors', JSON.stringify(errors));
await browser.close();
await server.httpServer.close();
process.exit(0);
