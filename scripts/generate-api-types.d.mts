/** Types of generate-api-types.mjs, for the test that imports it (test/generated-types.test.ts). */
export interface Target {
  /** The document, relative to the package root. */
  document: string;
  /** The generated file, relative to the package root. */
  output: string;
  /** What the document describes, for the generated file's header. */
  what: string;
}
export const TARGETS: Target[];
/** The text of the generated file for one parsed document. */
export function generate(document: Record<string, unknown>, target: Target): string;
/** Generates every target from the documents under `from` (the package root); file path → text. */
export function generateAll(from?: string): Map<string, string>;
