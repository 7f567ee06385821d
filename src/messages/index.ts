/** Message-level helpers: the public names of messages/. */
export { validateHistory, type HistoryProblem, type HistoryProblemCode } from "./validate.js";
export type { MessageUnit, UnitKind } from "./units.js";
export { isSummaryMessage, getSummaryProvenance, type SummaryProvenance, type SummaryRole } from "./summary-message.js";
export { pinMessage, isPinned, type PinPredicate } from "./pins.js";
export type { EditRecord } from "./markers.js";
