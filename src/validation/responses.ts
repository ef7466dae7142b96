/**
 * Response validation: every answer checked against its document (openapi.json for the service,
 * control-plane.openapi.json for /__mock), so the mock cannot drift from its own contracts. On in
 * the test suite; a switch in the CLI (--validate-responses). Ajv is the one eov brings; what it
 * compiles is shared with every other app of the same document in the process (componentsCompiler).
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { OpenApiDocument, Operation } from '../document/openapi.js';
import { componentsCompiler } from '../primitives/ajv.js';

export class ResponseValidationError extends Error {}

export type ResponseValidator = (op: Operation, status: number, contentType: string | undefined, body: unknown) => void;

/** `name` is how a mismatch names the document (openapi.json, control-plane.openapi.json). */
export function createResponseValidator(doc: OpenApiDocument, name = 'openapi.json'): ResponseValidator {
  const ajv = componentsCompiler(doc.components, { allErrors: true });
  const cache = new Map<string, ValidateFunction | null>();
  const pathOf = new Map<string, any>();
  for (const item of Object.values(doc.paths as Record<string, any>)) for (const op of Object.values(item as Record<string, any>)) pathOf.set(op.operationId, op);

  return (op, status, contentType, body) => {
    const responses = pathOf.get(op.id).responses as Record<string, any>;
    const documented = responses[String(status)];
    if (!documented) throw new ResponseValidationError(`${op.id} answered ${status}, which ${name} does not document`);
    const medias = Object.keys(documented.content ?? {});
    if (!medias.length) {
      if (body !== undefined) throw new ResponseValidationError(`${op.id} ${status} must have no body`);
      return;
    }
    const answered = contentType?.split(';')[0].trim().toLowerCase();
    // application/octet-stream documents bytes of any type (a download answers the file's own).
    const media = medias.find((m) => m === answered) ?? medias.find((m) => m === 'application/octet-stream');
    if (!media) throw new ResponseValidationError(`${op.id} ${status} answered ${contentType}, not ${medias.join(' or ')}`);
    if (media !== 'application/json') return; // bytes or XML: nothing to validate structurally
    const key = `${op.id} ${status}`;
    let validate = cache.get(key);
    if (validate === undefined) {
      validate = ajv.compile(documented.content[media].schema);
      cache.set(key, validate);
    }
    if (validate && !validate(body)) {
      throw new ResponseValidationError(`${op.id} ${status} response does not match ${name}: ${ajv.errorsText(validate.errors)}`);
    }
  };
}
