// Trunk post-build hook: minifies a release build's wasm-bindgen JS glue with terser and its CSS
// with csso (trunk's own JS minifier fails on the page's glue and is known to drop wasm-bindgen
// getters, so trunk's `minify` stays off). The page's glue and CSS are part of its initial-load
// budget (tests/e2e/perf.test.mjs). ES modules keep their export names; nothing else in dist/ is
// touched but the HTML's subresource-integrity hashes of the files it rewrote (trunk computed
// them before this hook runs). Debug builds (`trunk serve`) are left as they are, for readable
// stack traces.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'tools', 'package.json'));
const { minify } = require('terser');
const csso = require('csso');

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) {
  console.error('minify: TRUNK_STAGING_DIR is not set (run as a trunk post_build hook)');
  process.exit(2);
}
if (process.env.TRUNK_PROFILE !== 'release') process.exit(0);

const rewritten = [];
for (const name of fs.readdirSync(dir).sort()) {
  const file = path.join(dir, name);
  let code;
  let out;
  if (name.endsWith('.js')) {
    code = fs.readFileSync(file, 'utf8');
    // The page's glue is an ES module; the workers' glue is a classic script whose top-level
    // `wasm_bindgen` the loader calls, so its top level is left alone.
    const module = /^export /m.test(code);
    out = (await minify(code, { module, toplevel: module, compress: true, mangle: true, format: { comments: false } })).code;
  } else if (name.endsWith('.css')) {
    code = fs.readFileSync(file, 'utf8');
    // No restructuring: rules keep their order and meaning, only whitespace and comments go.
    out = csso.minify(code, { restructure: false, comments: false }).css;
  } else {
    continue;
  }
  if (!out) throw new Error(`minify: nothing came out for ${name}`);
  fs.writeFileSync(file, out);
  rewritten.push(name);
  console.log(`minify: ${name} ${code.length} → ${out.length} bytes`);
}

// `href="./NAME" ... integrity="sha384-…"`: the hash of the bytes now in place.
for (const html of fs.readdirSync(dir).filter((n) => n.endsWith('.html'))) {
  const file = path.join(dir, html);
  let text = fs.readFileSync(file, 'utf8');
  for (const name of rewritten) {
    const digest = crypto.createHash('sha384').update(fs.readFileSync(path.join(dir, name))).digest('base64');
    const tag = new RegExp(`(<[^>]*href="\\./${name.replace(/[.]/g, '\\.')}"[^>]*integrity=")sha384-[^"]*(")`, 'g');
    text = text.replace(tag, `$1sha384-${digest}$2`);
  }
  fs.writeFileSync(file, text);
  // Every integrity hash in the page must match its file, or the browser blocks it.
  for (const tag of text.match(/<[^>]*integrity="[^"]*"[^>]*>/g) ?? []) {
    const href = tag.match(/href="\.\/([^"]+)"/)?.[1];
    const want = tag.match(/integrity="sha384-([^"]+)"/)?.[1];
    if (!href || !want) throw new Error(`minify: cannot check the integrity of ${tag}`);
    const got = crypto.createHash('sha384').update(fs.readFileSync(path.join(dir, href))).digest('base64');
    if (got !== want) throw new Error(`minify: ${html}: the integrity hash of ${href} does not match it`);
  }
}
