/**
 * Response validation of a service reply before it is written (--validate-responses): the
 * ResponseValidator (validation/responses.ts, loaded only with the switch) sees its status, media
 * type and JSON value; a mismatch throws, and the app answers it as an unexpected fault (500).
 */
import type { Reply } from '../http/reply.js';
import type { Operation } from '../document/openapi.js';
import type { ResponseValidator } from './responses.js';

/** Response validation of a service answer: a mismatch throws (the app answers it 500). */
export function checkServiceReply(validate: ResponseValidator, op: Operation, out: Reply): Reply {
  if (out.stream) {
    try {
      validate(op, out.status, out.headers?.['Content-Type'], undefined);
    } catch (e) {
      // The stream holds a descriptor from the moment it was made: close it on every way out.
      out.stream.destroy();
      throw e;
    }
  } else if (out.jsonText !== undefined) validate(op, out.status, 'application/json', JSON.parse(out.jsonText));
  // Bytes as they are (an added operation's image or file): their media type is the headers'.
  else if (out.body !== undefined) validate(op, out.status, out.headers?.['Content-Type'], undefined);
  else if (out.json === undefined) validate(op, out.status, undefined, undefined);
  else validate(op, out.status, 'application/json', out.json);
  return out;
}
