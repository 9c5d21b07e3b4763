// Node's module hooks for running the web client's core outside a browser (development only; the
// tests that count run in Chromium): the page's import map resolves the bare specifiers the
// vendored libraries use, and the core's .js files load as ES modules.
import { readFileSync } from "node:fs";

const root = new URL("../../../client/web/", import.meta.url);
const map = JSON.parse(readFileSync(new URL("core/importmap.json", root), "utf-8")).imports;

export async function resolve(specifier, context, next) {
  for (const [key, target] of Object.entries(map)) {
    const prefix = key.endsWith("/");
    if (prefix ? specifier.startsWith(key) : specifier === key) {
      const rest = prefix ? specifier.slice(key.length) : "";
      return next(new URL(target + rest, root).href, context);
    }
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (url.startsWith(root.href) && url.endsWith(".js")) return next(url, { ...context, format: "module" });
  return next(url, context);
}
