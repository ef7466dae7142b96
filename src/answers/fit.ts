/**
 * A generated answer fitted to the request that asked for it, field by field at its top level, each
 * only where the value is valid for that field's schema:
 * - a field named like a path parameter carries the parameter's value (a stop answers the id of the
 *   session it stopped), as text or, for a numeric field, as the number the text is;
 * - a field named like one the client sent in its JSON body carries the value as sent
 *   (`headless: false` in, `headless: false` out; a list sent for a boolean field is not copied);
 * - an id field the answer made up (`id`, `…_id`, `…Id`) gets a new id from the workspace's
 *   generator where it has one for that field.
 */
export type FieldCheck = (name: string, value: unknown) => boolean;

export interface FitInput {
  pathParams: Record<string, string>;
  sentBody?: unknown;
  newId?: (field: string) => string | undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);
const ID_FIELD = /(^id$|_id$|[a-z]Id$)/;

/** `answer` with the request's values in it; the fields it cannot take stay as generated. */
export function fitToRequest(answer: unknown, input: FitInput, fields: ReadonlySet<string>, fits: FieldCheck): unknown {
  if (!isRecord(answer)) return answer;
  const out = { ...answer };
  const fitted = new Set<string>();
  for (const [name, text] of Object.entries(input.pathParams)) {
    if (!fields.has(name)) continue;
    const value = [text, Number(text)].find((candidate) => (typeof candidate !== 'number' || (text.trim() !== '' && Number.isFinite(candidate))) && fits(name, candidate));
    if (value === undefined) continue;
    out[name] = value;
    fitted.add(name);
  }
  if (isRecord(input.sentBody)) {
    for (const [name, value] of Object.entries(input.sentBody)) {
      if (fitted.has(name) || !fields.has(name) || !fits(name, value)) continue;
      out[name] = value;
      fitted.add(name);
    }
  }
  if (input.newId) {
    for (const name of Object.keys(out)) {
      if (fitted.has(name) || !ID_FIELD.test(name) || typeof out[name] !== 'string') continue;
      const id = input.newId(name);
      if (id !== undefined && fits(name, id)) out[name] = id;
    }
  }
  return out;
}
