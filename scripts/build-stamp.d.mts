/** Types of build-stamp.mjs, for test/packed.ts and test/npx.test.ts, which import it. */
/** The stamp's file name inside dist/. */
export const STAMP: string;
/** Whether a repository-relative path is installed, built or made by running the package (never a source). */
export function notSource(rel: string): boolean;
/** Whether a repository-relative path is left out of the package's hash (and of the tarball's key). */
export function notInput(rel: string): boolean;
/** The hash of what a build of the package at `root` is made from. */
export function inputsHash(root: string): string;
/** The hash of every file under `dist` but the stamp. */
export function outputsHash(dist: string): string;
/** Whether `dist` (default: root's dist/) holds what the build made from the package at `root` as it is now. */
export function stampMatches(root: string, dist?: string): boolean;
/** Stamps `dist` (default: root's dist/) as the build of the package at `root` as it is now. */
export function writeStamp(root: string, dist?: string): void;
