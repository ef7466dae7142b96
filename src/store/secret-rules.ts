/**
 * keyHint moved to model/secret-rules.ts (issue 25), below both store/ and scenarios/. This
 * re-export stays only until the importers in operations/ import model/ themselves (issue 25,
 * phase 2); then it is deleted.
 */
export { keyHint } from '../model/secret-rules.js';
