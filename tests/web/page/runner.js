// The test page's runner: loads one suite (`<suite>.test.js`, whose `tests(params)` gives its
// tests as {name, fn}), runs each test in turn and leaves every outcome in `window.__results`
// for the harness (tests/web/web_core_page.py) to read.

export async function run(suite) {
  const params = new URLSearchParams(location.search);
  const results = [];
  try {
    const module = await import(`/tests/${suite}.test.js`);
    for (const { name, fn } of await module.tests(params)) {
      const started = performance.now();
      try {
        await fn();
        results.push({ name, ok: true, error: "", ms: Math.round(performance.now() - started) });
      } catch (exc) {
        results.push({ name, ok: false, error: String(exc?.stack ?? exc), ms: Math.round(performance.now() - started) });
      }
    }
  } catch (exc) {
    results.push({ name: `loading the ${suite} suite`, ok: false, error: String(exc?.stack ?? exc), ms: 0 });
  }
  window.__results = results;
}

/** Fail with `message` unless `condition` holds. */
export function assert(condition, message) {
  if (!condition) throw new Error(message);
}

/** Fail unless `actual` and `expected` are equal (compared as JSON, bins as hex). */
export function assertEqual(actual, expected, what = "value") {
  const show = (v) => JSON.stringify(v, (_, x) => (x instanceof Uint8Array ? `<${[...x].map((b) => b.toString(16).padStart(2, "0")).join("")}>` : x));
  if (show(actual) !== show(expected)) throw new Error(`${what}: got ${show(actual)}, expected ${show(expected)}`);
}
