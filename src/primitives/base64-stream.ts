/** Base64 text as a stream of bytes decoded in slices, so a large snapshot does not block the event loop. */
import { Readable } from 'node:stream';

/** Base64 text decoded slice by slice (4 MiB of text each), yielding to other requests in between. */
export function base64Stream(text: string): Readable {
  const SLICE = 4 * 1024 * 1024;
  // Node skips whitespace and other non-alphabet characters, which would misalign the slices:
  // such text (rare: our export never writes it) is decoded in one piece.
  async function* slices() {
    for (let at = 0; at < text.length; at += SLICE) {
      const slice = text.slice(at, at + SLICE);
      if (/[^A-Za-z0-9+/_=-]/.test(slice)) {
        yield Buffer.from(text, 'base64');
        return;
      }
      yield Buffer.from(slice, 'base64');
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return Readable.from(slices());
}
