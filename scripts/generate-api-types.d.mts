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
/** The documents whose schemas the Python package gets as TypedDicts (python/src/cloud_browser_mock/). */
export const PYTHON_TARGETS: Target[];
/** The text of the Python module for one parsed document. */
export function generatePython(document: Record<string, unknown>, target: Target): string;
