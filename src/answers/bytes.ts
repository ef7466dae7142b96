/**
 * The bytes of an answer whose media type is not JSON (a screenshot, a download): text generated
 * from the schema where the media type is text and the schema a string, else bytes drawn from the
 * answer's seed, so the same request answers the same bytes.
 */
import { createHash } from 'node:crypto';

const TEXT = /^(text\/|application\/(xml|x-www-form-urlencoded|javascript|yaml)|[^/]+\/[^;]*\+xml)/i;

export const isText = (media: string) => TEXT.test(media.trim());

/** 64 to 319 bytes, a function of `seed` alone. */
export function seededBytes(seed: number): Buffer {
  const length = 64 + (seed % 256);
  const chunks: Buffer[] = [];
  let block = createHash('sha256').update(String(seed)).digest();
  for (let size = 0; size < length; size += block.length) {
    chunks.push(block);
    block = createHash('sha256').update(block).digest();
  }
  return Buffer.concat(chunks).subarray(0, length);
}

/** The content type to send for a documented media type: a wildcard one (`image/*`) is sent as octet-stream. */
export const sentType = (media: string) => (media.includes('*') ? 'application/octet-stream' : media);
