/**
 * What Ajv found, kept for the mapper. express-openapi-validator 5.6.2 (pinned) turns Ajv's errors
 * into `{ path, message, errorCode }` (middlewares/util.js, `ajvErrorsToValidatorError`) and drops
 * Ajv's `params` and `schemaPath`: what was expected is then only in English text. Its converter is
 * wrapped here to keep each Ajv error beside the one eov makes of it, under a non-enumerable
 * symbol, so eov's objects look to anyone else (a user's own eov in the same process) exactly as
 * eov makes them. The mapper decides from the error code, Ajv's params and the schema, never the text.
 */

/** One Ajv error as Ajv reported it to eov, less its English `message`. */
export interface AjvError {
  keyword: string;
  /** Ajv's structured detail: `type` for a type error, `missingProperty`, `limit`, `format`… */
  params: Record<string, unknown>;
  instancePath: string;
  schemaPath: string;
}

/** Shared by every copy of this module in a process (the ESM and CommonJS builds share one eov). */
const AJV: unique symbol = Symbol.for('cloud-browser-mock.ajv-error') as any;

type Converter = ((status: number, errors: AjvError[]) => { errors: object[] }) & { keepsAjv?: boolean };

let wrapped: Promise<void> | undefined;

/** Wraps eov's converter once per process (eov calls it through its module's exports, so this reaches it). */
export function keepAjvErrors(): Promise<void> {
  wrapped ??= import('express-openapi-validator/dist/middlewares/util.js').then((m: any) => {
    const exports = m.default ?? m;
    const original = exports.ajvErrorsToValidatorError as Converter;
    if (typeof original !== 'function') throw new Error('express-openapi-validator changed how it converts Ajv errors: review src/validation/ajv-errors.ts');
    if (original.keepsAjv) return;
    const keeping: Converter = (status, errors) => {
      const out = original(status, errors);
      // eov maps Ajv's list one to one (after filtering it in augmentAjvErrors). Ajv's own text
      // is left behind: what is kept is what can be decided on.
      out.errors.forEach((e, i) => {
        const { keyword, params, instancePath, schemaPath } = errors[i];
        Object.defineProperty(e, AJV, { value: { keyword, params, instancePath, schemaPath } });
      });
      return out;
    };
    keeping.keepsAjv = true;
    exports.ajvErrorsToValidatorError = keeping;
    if (exports.ajvErrorsToValidatorError !== keeping) throw new Error('express-openapi-validator changed how it converts Ajv errors: review src/validation/ajv-errors.ts');
  });
  return wrapped;
}

/** The Ajv error eov made `e` from, or undefined for an error eov raised itself (not from Ajv). */
export function ajvErrorOf(e: object): AjvError | undefined {
  return (e as { [AJV]?: AjvError })[AJV];
}
