// `node --import ./tests/web/node/register.mjs ...`: the hooks of hooks.mjs.
import { register } from "node:module";

register("./hooks.mjs", import.meta.url);
