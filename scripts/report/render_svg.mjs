// Renders every Vega-Lite specification in SPECS_DIR (*.vl.json) to
// OUT_DIR/NAME.svg with vega's own SVG renderer, in one node process (called
// by `sdcbench report`). vega-cli's vl2svg does the same per file, but it
// depends on the native `canvas` package, which builds from source against
// cairo; without canvas, vega estimates text widths, as vl2svg would.
// Exit 1 naming the specification on any compile, parse or render error,
// warnings included: a chart that renders with a warning has a defect.
import fs from 'node:fs';
import path from 'node:path';
import * as vega from 'vega';
import * as vl from 'vega-lite';

const [specDir, outDir] = process.argv.slice(2);
if (!specDir || !outDir) {
  console.error('usage: node render_svg.mjs SPECS_DIR OUT_DIR');
  process.exit(2);
}
fs.mkdirSync(outDir, { recursive: true });
const files = fs.readdirSync(specDir).filter((f) => f.endsWith('.vl.json')).sort();
let failed = 0;
for (const f of files) {
  const name = f.slice(0, -'.vl.json'.length);
  const problems = [];
  const logger = vega.logger(vega.Warn);
  logger.warn = (...m) => problems.push(m.join(' '));
  logger.error = (...m) => problems.push(m.join(' '));
  try {
    const spec = JSON.parse(fs.readFileSync(path.join(specDir, f), 'utf8'));
    const compiled = vl.compile(spec, { logger }).spec;
    const view = new vega.View(vega.parse(compiled), { renderer: 'none', logger });
    const svg = await view.toSVG();
    view.finalize();
    if (problems.length) throw new Error(problems.join('; '));
    fs.writeFileSync(path.join(outDir, name + '.svg'), svg);
  } catch (e) {
    console.error(`${path.join(specDir, f)}: ${e.message}`);
    ++failed;
  }
}
if (failed) process.exit(1);
console.log(`rendered ${files.length} figures to ${outDir}`);
