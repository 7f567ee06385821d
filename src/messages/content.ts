/** The text of a message (message-shape.ts, shared with the browser client). */
export { contentText } from "./message-shape.js";
