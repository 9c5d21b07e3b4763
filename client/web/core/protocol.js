/**
 * The protocol's constants for the UI: error codes, phases, the version this page speaks, the
 * capabilities it announces, the games it plays.
 * @module
 */
import SCHEMA from "./schema.js";

export { ErrorCode, errorName } from "./errors.js";
export { KINDS } from "./games/index.js";

/** Every phase of docs/PROTOCOL.md section 4, in order. */
export const PHASES = Object.freeze([...SCHEMA.phases]);

/** The version this page speaks best (the schema's: the reference code's). */
export const VERSION = Object.freeze({ ...SCHEMA.version });

/** The capabilities HELLO announces: everything this client implements. */
export const CAPABILITIES = Object.freeze(["chat", "spectate", "resume", "placement", "tournament_redirect"]);

/** The protocol's name in HELLO. */
export const PROTOCOL_NAME = SCHEMA.protocol;

/** The limits of what each side sends (docs/PROTOCOL.md section 1). */
export const LIMITS = Object.freeze({ client: { ...SCHEMA.limits.client }, server: { ...SCHEMA.limits.server } });
