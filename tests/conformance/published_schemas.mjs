// Prints the MCP JSON schemas the pinned conformance suite ships, as JSON: {"<revision>": schema, ...}.
//
// The suite's dist/index.js holds them as JS object literals in a map such as
// {"2025-03-26":Pe,"2025-06-18":Fe,"2025-11-25":Ie,[A]:Le} (A being a constant for "2026-07-28").
// This finds the map, each variable's literal (brace-matched, skipping strings and template
// literals), and evaluates the literal alone in an empty context: nothing of the suite runs.
//
// Usage: node published_schemas.mjs <path to @modelcontextprotocol/conformance/dist/index.js>
import { readFileSync } from "node:fs";
import vm from "node:vm";

const source = readFileSync(process.argv[2], "utf8");
const identifier = "[A-Za-z_$][A-Za-z0-9_$]*";
const entry = `(?:"\\d{4}-\\d{2}-\\d{2}"|\\[${identifier}\\]):${identifier}`;
const map = source.match(new RegExp(`\\{(${entry}(?:,${entry})+)\\}`));
if (!map) throw new Error("no {revision: schema} map found in " + process.argv[2]);

function literalAfter(name) {
  const start = source.search(new RegExp(`[,\\s;{(]${name.replace("$", "\\$")}=\\{\\$schema:`));
  if (start < 0) throw new Error(`no literal for ${name}`);
  let i = source.indexOf("{", start + 1);
  const open = i;
  let depth = 0;
  for (; i < source.length; i++) {
    const c = source[i];
    if (c === "`" || c === '"' || c === "'") {
      for (i++; source[i] !== c; i++) if (source[i] === "\\") i++;
    } else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return source.slice(open, i + 1);
  }
  throw new Error(`unbalanced literal for ${name}`);
}

function constant(name) {
  const found = source.match(new RegExp(`[,\\s;]${name.replace("$", "\\$")}=\`([^\`]*)\``));
  if (!found) throw new Error(`no string constant ${name}`);
  return found[1];
}

const schemas = {};
for (const pair of map[1].split(",")) {
  const [key, name] = pair.split(":");
  const revision = key.startsWith("[") ? constant(key.slice(1, -1)) : JSON.parse(key);
  schemas[revision] = vm.runInNewContext("(" + literalAfter(name) + ")", Object.create(null));
}
process.stdout.write(JSON.stringify(schemas));
