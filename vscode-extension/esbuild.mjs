// Bundles src/extension.ts and its dependencies (vscode-languageclient) into one CommonJS
// file, so the .vsix ships no node_modules. `vscode` is provided by the editor at run time.
import * as esbuild from "esbuild";

const production = process.argv.includes("--production");

await esbuild.build({
  entryPoints: ["src/extension.ts"],
  bundle: true,
  outfile: "dist/extension.js",
  external: ["vscode"],
  format: "cjs",
  platform: "node",
  target: "node20",
  minify: production,
  sourcemap: !production,
  logLevel: "warning",
});
