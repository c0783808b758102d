// Times @mozilla/readability 0.6 with jsdom 27 on the extraction
// benchmark's pages: single thread, one warm-up over a few pages, then the
// best of two rounds; prints one JSON line. Run by `cargo xtask bench extract`.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { JSDOM, VirtualConsole } from "jsdom";
import { Readability } from "@mozilla/readability";

const dir = process.argv[2];
const files = fs.readdirSync(dir).filter((f) => f.endsWith(".html.gz")).sort();
const pages = files.map((f) => zlib.gunzipSync(fs.readFileSync(path.join(dir, f))).toString("utf8"));

function extract(html) {
  // A silent console: jsdom reports every stylesheet it cannot parse.
  const dom = new JSDOM(html, { url: "https://example.invalid/", virtualConsole: new VirtualConsole() });
  const article = new Readability(dom.window.document).parse();
  dom.window.close();
  return article ? article.textContent : "";
}

for (const html of pages.slice(0, 5)) extract(html);
let best = Infinity;
for (let round = 0; round < 2; round++) {
  const t = process.hrtime.bigint();
  for (const html of pages) extract(html);
  best = Math.min(best, Number(process.hrtime.bigint() - t) / 1e6);
}
console.log(JSON.stringify({ peer: "@mozilla/readability 0.6 + jsdom 27", ms_per_page: +(best / pages.length).toFixed(3), pages: pages.length }));
