/**
 * Pydantic models inferred from a recorded scrape result, and the JSON Schema that matches them.
 * Objects become classes named after their keys (PascalCase; list items get `Item`), declared
 * before the classes that use them, so the script needs no forward references.
 */
import { pyStrRepr } from '../python/repr.js';
import { className, fieldName, NameScope } from './identifiers.js';
import { shapeOf, type ObjectShape, type Shape } from './infer-shape.js';

export type JsonSchema = Record<string, unknown>;

export interface ModelField {
  /** The Python attribute name. */
  name: string;
  /** The JSON key, when it is not `name` (then declared with `Field(alias=…)`). */
  alias: string | null;
  annotation: string;
  /** Nullable or absent in part of the sample: `= None`. */
  optional: boolean;
}

export interface ModelClass {
  name: string;
  fields: ModelField[];
}

export interface InferredModel {
  /** The class passed to the scrape as its response_format. */
  root: string;
  /** Every class the root needs, the root last. */
  classes: ModelClass[];
  /** The JSON Schema of the root, for json_actions. */
  schema: JsonSchema;
}

/** The root class of a scrape's result. */
const ROOT_NAME = 'ScrapeResult';
/**
 * A result that is not an object is typed as an object with one field, `result`: a
 * response_format is a model, and the real service's own fallback schema has the same shape.
 */
const WRAPPED_KEY = 'result';

/** Infers the model of one sample; `classNames` is the script's scope of class names. */
export function inferModel(sample: unknown, classNames: NameScope): InferredModel {
  const isObject = typeof sample === 'object' && sample !== null && !Array.isArray(sample);
  const shape = shapeOf(isObject ? sample : { [WRAPPED_KEY]: sample }) as ObjectShape;
  const classes: ModelClass[] = [];
  const root = className('', ROOT_NAME, classNames);
  const schema = declare(shape, root, classes, classNames);
  return { root, classes, schema };
}

function declare(shape: ObjectShape, name: string, classes: ModelClass[], classNames: NameScope): JsonSchema {
  const fieldNames = new NameScope();
  const fields: ModelField[] = [];
  const properties: [string, JsonSchema][] = [];
  const required: string[] = [];
  for (const [key, s] of shape.keys) {
    const field = fieldName(key, fieldNames);
    const t = typeOf(s, key, false, classes, classNames);
    const optional = s.kind === 'optional' || s.kind === 'null';
    fields.push({ name: field, alias: field === key ? null : key, annotation: t.annotation, optional });
    properties.push([key, optional ? { ...t.schema, default: null } : t.schema]);
    if (!optional) required.push(key);
  }
  classes.push({ name, fields });
  // Object.fromEntries, not assignment: a key such as `__proto__` must stay an own property.
  const schema: JsonSchema = { type: 'object', title: name, properties: Object.fromEntries(properties) };
  if (required.length) schema.required = required;
  return schema;
}

function typeOf(s: Shape, key: string, inList: boolean, classes: ModelClass[], classNames: NameScope): { annotation: string; schema: JsonSchema } {
  switch (s.kind) {
    case 'str':
      return { annotation: 'str', schema: { type: 'string' } };
    case 'int':
      return { annotation: 'int', schema: { type: 'integer' } };
    case 'float':
      return { annotation: 'float', schema: { type: 'number' } };
    case 'bool':
      return { annotation: 'bool', schema: { type: 'boolean' } };
    case 'any':
    case 'empty':
      return { annotation: 'Any', schema: {} };
    case 'null':
      return { annotation: 'Any | None', schema: { anyOf: [{}, { type: 'null' }] } };
    case 'optional': {
      const t = typeOf(s.of, key, inList, classes, classNames);
      return { annotation: `${t.annotation} | None`, schema: { anyOf: [t.schema, { type: 'null' }] } };
    }
    case 'list': {
      const t = typeOf(s.of, key, true, classes, classNames);
      return { annotation: `list[${t.annotation}]`, schema: { type: 'array', items: t.schema } };
    }
    case 'object': {
      const name = className(key, inList ? 'Item' : '', classNames);
      return { annotation: name, schema: declare(s, name, classes, classNames) };
    }
  }
}

/** The Python source of a class, one line per element. */
export function classSource(c: ModelClass): string[] {
  const body = c.fields.map((f) => {
    const value = f.alias === null ? (f.optional ? ' = None' : '') : ` = Field(${f.optional ? 'default=None, ' : ''}alias=${pyStrRepr(f.alias)})`;
    return `    ${f.name}: ${f.annotation}${value}`;
  });
  return [`class ${c.name}(BaseModel):`, ...(body.length ? body : ['    pass'])];
}

export const usesAny = (classes: ModelClass[]) => classes.some((c) => c.fields.some((f) => /\bAny\b/.test(f.annotation)));
export const usesField = (classes: ModelClass[]) => classes.some((c) => c.fields.some((f) => f.alias !== null));
