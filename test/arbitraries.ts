/**
 * fast-check arbitraries the test files share.
 *
 * `codePoint`: any one code point but a surrogate — what fast-check's `unit: 'binary'` draws, index
 * for index (the same values for a seed, and inside a tuple or a oneof the same draws around it),
 * without the reverse table of all 1.1 million code points fast-check builds for that unit the first
 * time a file asks for it (~1.6 CPU-s a test file). The unmapper tells fast-check which strings it
 * can make, so its special strings are mixed in and shrinking works as with the built-in unit. Use
 * `fc.string({ unit: codePoint, … })` where `fc.string({ unit: 'binary', … })` would do.
 */
import fc from 'fast-check';

const SURROGATES = 0xe000 - 0xd800;

export const codePoint = fc.nat({ max: 0x10ffff - SURROGATES }).map(
  (i) => String.fromCodePoint(i < 0xd800 ? i : i + SURROGATES),
  (s) => {
    const cp = typeof s === 'string' ? s.codePointAt(0) : undefined;
    if (cp === undefined || String.fromCodePoint(cp) !== s || (cp >= 0xd800 && cp < 0xe000)) throw new Error('not one code point outside the surrogates');
    return cp < 0xd800 ? cp : cp - SURROGATES;
  },
);
