/**
 * The property suites kept beside their subjects rather than in test/reliability/, whose full sizes (`size(…)` in
 * test/support/reliability.ts) `npm run test:reliability` runs with the reliability suites: about 35 s at full size.
 * test/reliability/full-sizes.test.ts checks that every suite with a full size is run there.
 */
export const FULL_SIZE_ELSEWHERE = [
  "test/recall/transcript.test.ts",
  "test/strategies/strategies.test.ts",
  "test/summarizers/extractive-properties.test.ts",
  "test/summarizers/distinct.test.ts",
];
