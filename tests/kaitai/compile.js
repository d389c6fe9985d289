// Compile a Kaitai Struct description to a Python module with the npm build of
// kaitai-struct-compiler (a library: it takes the parsed YAML and returns the files).
// Writes the module and the description as JSON (which compare.py reads) into OUT_DIR.
//
// Usage: node compile.js DESCRIPTION.ksy OUT_DIR   (with NODE_PATH naming node_modules)
"use strict";

const fs = require("fs");
const path = require("path");
const yaml = require("js-yaml");
const compiler = require("kaitai-struct-compiler");

const [source, outDir] = process.argv.slice(2);
if (!source || !outDir) {
  console.error("usage: node compile.js DESCRIPTION.ksy OUT_DIR");
  process.exit(2);
}
const ksy = yaml.load(fs.readFileSync(source, "utf8"));
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(path.join(outDir, path.basename(source) + ".json"), JSON.stringify(ksy, null, 1));
compiler
  .compile("python", ksy, null, false)
  .then((files) => {
    for (const [name, text] of Object.entries(files)) {
      fs.writeFileSync(path.join(outDir, name), text);
      console.log(`kaitai-struct-compiler ${compiler.version}: ${source} -> ${path.join(outDir, name)}`);
    }
  })
  .catch((error) => {
    console.error(`error: kaitai-struct-compiler rejects ${source}:`, error && error.toString ? error.toString() : error);
    process.exit(1);
  });
