/**
 * The record types moved to model/records.ts (issue 25), below both store/ and scenarios/. This
 * re-export stays only until the importers in operations/ and control-plane/ — rewritten on other
 * branches at the same time — import model/ themselves (issue 25, phase 2); then it is deleted.
 */
export * from '../model/records.js';
