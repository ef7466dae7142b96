/**
 * Ajv's sentence for an error, rebuilt from its keyword and params (Ajv's wording, eov's for
 * `enum`). A constraint Pydantic has no error type of its own for is answered as `value_error`,
 * "Value error, <sentence>": built here, a client reads the sentence it read when the mapper still
 * took Ajv's text, and nothing is decided on that text. A keyword Ajv does not know (a custom
 * one) is named as it is.
 */
import type { AjvError } from './ajv-errors.js';

/** Ajv's wording of a type: `integer`, or `string,null` for a list of types. */
export function typeNames(type: unknown): string {
  return Array.isArray(type) ? type.join(',') : String(type);
}

export function constraintText({ keyword, params: p }: Pick<AjvError, 'keyword' | 'params'>): string {
  switch (keyword) {
    case 'type':
      return `must be ${typeNames(p.type)}`;
    case 'x-eov-type':
      // eov's alias of JSON Type Definition's `type`.
      return `must be ${p.type}${p.nullable ? ' or null' : ''}`;
    case 'required':
      return `must have required property '${p.missingProperty}'`;
    case 'enum':
      // eov adds the allowed values to Ajv's sentence.
      return `must be equal to one of the allowed values: ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'minLength':
    case 'maxLength':
      return `must NOT have ${keyword === 'minLength' ? 'fewer' : 'more'} than ${p.limit} characters`;
    case 'minItems':
    case 'maxItems':
      return `must NOT have ${keyword === 'minItems' ? 'fewer' : 'more'} than ${p.limit} items`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `must be ${p.comparison} ${p.limit}`;
    case 'pattern':
      return `must match pattern "${p.pattern}"`;
    case 'multipleOf':
      return `must be multiple of ${p.multipleOf}`;
    case 'const':
      return 'must be equal to constant';
    case 'format':
      return `must match format "${p.format}"`;
    case 'uniqueItems':
      return `must NOT have duplicate items (items ## ${p.j} and ${p.i} are identical)`;
    case 'minProperties':
    case 'maxProperties':
      return `must NOT have ${keyword === 'minProperties' ? 'fewer' : 'more'} than ${p.limit} properties`;
    case 'additionalProperties':
      return 'must NOT have additional properties';
    case 'unevaluatedProperties':
      return 'must NOT have unevaluated properties';
    case 'items':
    case 'additionalItems':
    case 'unevaluatedItems':
      return `must NOT have more than ${p.limit} items`;
    case 'contains':
      return p.maxContains === undefined ? `must contain at least ${p.minContains} valid item(s)` : `must contain at least ${p.minContains} and no more than ${p.maxContains} valid item(s)`;
    case 'dependencies':
    case 'dependentRequired':
      return `must have ${p.depsCount === 1 ? 'property' : 'properties'} ${p.deps} when property ${p.property} is present`;
    case 'propertyNames':
      return 'property name must be valid';
    case 'not':
      return 'must NOT be valid';
    case 'anyOf':
      return 'must match a schema in anyOf';
    case 'oneOf':
      return 'must match exactly one schema in oneOf';
    case 'if':
      return `must match "${p.failingKeyword}" schema`;
    case 'false schema':
      return 'boolean schema is false';
    case 'discriminator':
      return p.error === 'tag' ? `tag "${p.tag}" must be string` : `value of tag "${p.tag}" must be in oneOf`;
    case 'readOnly':
      return 'is read-only';
    default:
      return `must satisfy ${keyword}`;
  }
}
