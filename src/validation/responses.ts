/**
 * Response validation: every answer checked against openapi.json, so the mock cannot drift from
 * its own contract. On in the test suite; a switch in the CLI.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { OpenApiDocument, Operation } from '../openapi.js';
import { createAjv } from '../primitives/ajv.js';

export class ResponseValidationError extends Error {}

export type ResponseValidator = (op: Operation, status: number, contentType: string | undefined, body: unknown) => void;

export function createResponseValidator(doc: OpenApiDocument): ResponseValidator {
  const ajv = createAjv({ allErrors: true });
  ajv.addSchema({ $id: 'openapi', components: doc.components });
  const cache = new Map<string, ValidateFunction | null>();
  const pathOf = new Map<string, any>();
  for (const item of Object.values(doc.paths as Record<string, any>)) for (const op of Object.values(item as Record<string, any>)) pathOf.set(op.operationId, op);

  return (op, status, contentType, body) => {
    const responses = pathOf.get(op.id).responses as Record<string, any>;
    const doc = responses[String(status)];
    if (!doc) throw new ResponseValidationError(`${op.id} answered ${status}, which openapi.json does not document`);
    const media = doc.content ? Object.keys(doc.content)[0] : undefined;
    if (!media) {
      if (body !== undefined) throw new ResponseValidationError(`${op.id} ${status} must have no body`);
      return;
    }
    if (media !== 'application/json') return; // bytes: nothing to validate structurally
    if (!contentType?.startsWith('application/json')) throw new ResponseValidationError(`${op.id} ${status} answered ${contentType}, not application/json`);
    const key = `${op.id} ${status}`;
    let validate = cache.get(key);
    if (validate === undefined) {
      const schema = JSON.parse(JSON.stringify(doc.content[media].schema).replace(/"#\/components\//g, '"openapi#/components/'));
      validate = ajv.compile(schema);
      cache.set(key, validate);
    }
    if (validate && !validate(body)) {
      throw new ResponseValidationError(`${op.id} ${status} response does not match openapi.json: ${ajv.errorsText(validate.errors)}`);
    }
  };
}
