// The report's browser test: loads DIR/index.html in headless Chromium
// (Debian's /usr/bin/chromium, driven by playwright-core), fails on any
// console error or page error, and checks that every chart element rendered an
// SVG with marks (Vega's mark groups holding drawn items). Then it parses every
// DIR/figures/*.svg with the browser's own XML parser: each must be well-formed
// SVG with drawn marks, and there must be one per chart on the page. With
// --screenshots OUT it also saves one PNG per chart, to look at.
// Usage: node check_report.mjs DIR/index.html [--screenshots OUT]
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

const page_path = process.argv[2];
const shots = process.argv[3] === '--screenshots' ? process.argv[4] : null;
if (!page_path || !fs.existsSync(page_path)) {
  console.error(`usage: node check_report.mjs DIR/index.html [--screenshots OUT] (got ${page_path})`);
  process.exit(2);
}
const profile = fs.mkdtempSync('/tmp/sdcbench-chromium-');
// A new empty profile (playwright passes it as --user-data-dir), removed
// whether or not chromium starts.
let browser;
try {
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.SDCBENCH_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
  });
} catch (e) {
  fs.rmSync(profile, { recursive: true, force: true });
  console.error(`chromium did not start: ${e.message}`);
  process.exit(1);
}
const problems = [];
try {
  const page = await browser.newPage();
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  await page.goto('file://' + path.resolve(page_path));
  await page.evaluate(() => window.sdcbenchRendered.then(() => true)).catch((e) => problems.push(`rendering: ${e.message ?? e}`));
  const charts = await page.$$eval('[data-chart]', (els) => els.map((el) => {
    const svg = el.querySelector('svg');
    const marks = svg ? svg.querySelectorAll('g[class^="mark-"] > path, g[class^="mark-"] > rect, g[class^="mark-"] > line, g[class^="mark-"] > text, g[class^="mark-"] > circle').length : 0;
    const data = svg ? svg.querySelectorAll('.role-mark > *').length : 0;
    return { id: el.dataset.chart, svg: !!svg, marks, data, width: svg ? svg.getBoundingClientRect().width : 0 };
  }));
  if (charts.length === 0) problems.push('no charts on the page');
  for (const c of charts) {
    if (!c.svg) problems.push(`chart ${c.id}: no SVG`);
    else if (c.data === 0) problems.push(`chart ${c.id}: an SVG without data marks`);
    else if (c.width < 50) problems.push(`chart ${c.id}: SVG ${c.width} px wide`);
  }
  // The figure files, parsed by the browser (DOMParser reports malformed XML
  // as a <parsererror> document).
  const figDir = path.join(path.dirname(page_path), 'figures');
  const files = fs.existsSync(figDir) ? fs.readdirSync(figDir).filter((f) => f.endsWith('.svg')).sort() : [];
  const svgs = files.map((f) => ({ name: f, text: fs.readFileSync(path.join(figDir, f), 'utf8') }));
  const parsed = await page.evaluate((list) => list.map(({ name, text }) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    const root = doc.documentElement;
    return { name, error: doc.getElementsByTagName('parsererror').length > 0 || root.nodeName !== 'svg',
             marks: root.querySelectorAll('.role-mark > *').length, bytes: text.length };
  }), svgs);
  for (const f of parsed) {
    if (f.error) problems.push(`figures/${f.name}: not well-formed SVG`);
    else if (f.marks === 0) problems.push(`figures/${f.name}: an SVG without data marks`);
  }
  const onPage = new Set(charts.map((c) => `${c.id}.svg`));
  for (const c of onPage) if (!files.includes(c)) problems.push(`figures/${c}: missing`);
  if (shots) {
    fs.mkdirSync(shots, { recursive: true });
    for (const c of charts) await (await page.$(`[data-chart="${c.id}"]`)).screenshot({ path: path.join(shots, `${c.id}.png`) });
  }
  console.log(`${charts.length} charts rendered with ${charts.reduce((a, c) => a + c.data, 0)} data marks; ` +
              `${parsed.length} SVG files parsed (${parsed.reduce((a, f) => a + f.bytes, 0)} bytes)`);
} finally {
  await browser.close();
  fs.rmSync(profile, { recursive: true, force: true });
}
for (const p of problems) console.error(p);
process.exit(problems.length ? 1 : 0);
