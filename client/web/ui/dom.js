/**
 * Building the page's elements, and keeping the keyboard's place across redraws.
 *
 * Every screen is drawn anew from the client's state when it changes (a few hundred elements at
 * most): simple, and never out of step with the game. What a redraw must not lose is the focus,
 * so every control that can hold it carries a `data-key` unique on the screen, and `redraw`
 * puts the focus back on the control with the same key.
 * @module
 */

/**
 * An element: `h("button", {class: "card", onclick: f, "aria-label": "tempura"}, "Tempura")`.
 * Attributes that are null, undefined or false are left out; true sets an empty one.
 * @param {string} tag
 * @param {Record<string, any>|null} [props]
 * @param {...any} children strings, nodes, arrays of them, or nothing (null, false)
 * @returns {HTMLElement}
 */
export function h(tag, props = null, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2), value);
    } else if (name === "class") {
      el.className = value;
    } else if (name === "key") {
      el.dataset.key = value;
    } else if (name === "value" && "value" in el) {
      el.value = value;
    } else if (name === "checked" || name === "selected") {
      el[name] = Boolean(value);
    } else {
      el.setAttribute(name, value === true ? "" : String(value));
    }
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/**
 * Replace what `root` holds with `content`, keeping the focus on the control of the same
 * `data-key` (and the text typed into an input of the same key).
 * @param {HTMLElement} root
 * @param {Node[]} content
 */
export function redraw(root, content) {
  const active = document.activeElement;
  const key = active instanceof HTMLElement && root.contains(active) ? active.dataset.key : undefined;
  const typed = new Map();
  for (const input of root.querySelectorAll("input[data-key], textarea[data-key], select[data-key]")) {
    if (input.type !== "checkbox") typed.set(input.dataset.key, input.value);
  }
  root.replaceChildren(...content);
  for (const input of root.querySelectorAll("input[data-key], textarea[data-key]")) {
    if (typed.has(input.dataset.key) && input.dataset.keep !== "no") input.value = typed.get(input.dataset.key);
  }
  if (key !== undefined) {
    const again = root.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (again instanceof HTMLElement && !again.hasAttribute("disabled")) again.focus({ preventScroll: true });
  }
}

/** A labelled select: `choice("players", "Players", [["2", "2 players"], ...], "4", f)`. */
export function choice(key, label, options, value, onchange) {
  const id = `f-${key}`;
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    h(
      "select",
      { id, key, onchange: (e) => onchange(e.target.value) },
      options.map(([v, text]) => h("option", { value: v, selected: String(v) === String(value) }, text)),
    ),
  );
}

/** What the timer shows: the time left for what the step waits for ("" when no timer runs). */
export function timerText(client) {
  const deadline = client.deadline;
  if (deadline === null || deadline === undefined) return "";
  const seconds = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
  return `${seconds} s left`;
}
