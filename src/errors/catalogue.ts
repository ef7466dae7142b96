/**
 * Pydantic v2's error types as FastAPI reports them in a 422 body: the catalogue of CONTRACT §4.
 * Message texts are Pydantic's, word for word; tests import these templates.
 */
export type Loc = (string | number)[];

export interface PydanticError {
  type: string;
  loc: Loc;
  msg: string;
  /** The raw value as received; serialised as Python would (see pyDumps). */
  input: unknown;
  ctx?: Record<string, unknown>;
}

export const MSG = {
  missing: 'Field required',
  greater_than_equal: (ge: number | bigint) => `Input should be greater than or equal to ${ge}`,
  less_than_equal: (le: number | bigint) => `Input should be less than or equal to ${le}`,
  int_parsing: 'Input should be a valid integer, unable to parse string as an integer',
  int_parsing_size: 'Unable to parse input string as an integer, exceeded maximum size',
  int_from_float: 'Input should be a valid integer, got a number with a fractional part',
  int_type: 'Input should be a valid integer',
  bool_parsing: 'Input should be a valid boolean, unable to interpret input',
  bool_type: 'Input should be a valid boolean',
  enum: (expected: string) => `Input should be ${expected}`,
  string_type: 'Input should be a valid string',
  string_too_short: (n: number) => `String should have at least ${n} character${n === 1 ? '' : 's'}`,
  string_too_long: (n: number) => `String should have at most ${n} character${n === 1 ? '' : 's'}`,
  string_pattern_mismatch: (p: string) => `String should match pattern '${p}'`,
  list_type: 'Input should be a valid list',
  dict_type: 'Input should be a valid dictionary',
  float_parsing: 'Input should be a valid number, unable to parse string as a number',
  float_type: 'Input should be a valid number',
  model_attributes_type: 'Input should be a valid dictionary or object to extract fields from',
  json_invalid: 'JSON decode error',
  value_error_upload: "Value error, Expected UploadFile, received: <class 'str'>",
  union_tag_invalid: (tag: string, discriminator: string, expected: string) => `Input tag '${tag}' found using ${discriminator} does not match any of the expected tags: ${expected}`,
  union_tag_not_found: (discriminator: string) => `Unable to extract tag using discriminator ${discriminator}`,
} as const;

/** Every error type the mock can answer, for the parity and fuzz tests. */
export const ERROR_TYPES = [
  'missing', 'greater_than_equal', 'less_than_equal', 'int_parsing', 'int_parsing_size', 'int_from_float', 'int_type',
  'bool_parsing', 'bool_type', 'enum', 'string_type', 'string_too_short', 'string_too_long',
  'string_pattern_mismatch', 'list_type', 'model_attributes_type', 'json_invalid', 'value_error',
  // reachable only through the control plane's bodies:
  'dict_type', 'float_parsing', 'float_type',
  // reachable only through the operations a --spec document adds (a discriminated union):
  'union_tag_invalid', 'union_tag_not_found',
] as const;

/** Pydantic's way of listing enum members: `'a' or 'b'`, `'a', 'b' or 'c'`. */
export function expectedList(values: readonly string[]): string {
  const quoted = values.map((v) => `'${v}'`);
  return quoted.length <= 1 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

export const err = {
  missing: (loc: Loc, input: unknown = null): PydanticError => ({ type: 'missing', loc, msg: MSG.missing, input }),
  ge: (loc: Loc, input: unknown, ge: number): PydanticError => ({ type: 'greater_than_equal', loc, msg: MSG.greater_than_equal(ge), input, ctx: { ge } }),
  le: (loc: Loc, input: unknown, le: number): PydanticError => ({ type: 'less_than_equal', loc, msg: MSG.less_than_equal(le), input, ctx: { le } }),
  intParsing: (loc: Loc, input: unknown): PydanticError => ({ type: 'int_parsing', loc, msg: MSG.int_parsing, input }),
  intParsingSize: (loc: Loc, input: unknown): PydanticError => ({ type: 'int_parsing_size', loc, msg: MSG.int_parsing_size, input }),
  intFromFloat: (loc: Loc, input: unknown): PydanticError => ({ type: 'int_from_float', loc, msg: MSG.int_from_float, input }),
  intType: (loc: Loc, input: unknown): PydanticError => ({ type: 'int_type', loc, msg: MSG.int_type, input }),
  boolParsing: (loc: Loc, input: unknown): PydanticError => ({ type: 'bool_parsing', loc, msg: MSG.bool_parsing, input }),
  boolType: (loc: Loc, input: unknown): PydanticError => ({ type: 'bool_type', loc, msg: MSG.bool_type, input }),
  enum: (loc: Loc, input: unknown, values: readonly string[]): PydanticError => {
    const expected = expectedList(values);
    return { type: 'enum', loc, msg: MSG.enum(expected), input, ctx: { expected } };
  },
  stringType: (loc: Loc, input: unknown): PydanticError => ({ type: 'string_type', loc, msg: MSG.string_type, input }),
  tooShort: (loc: Loc, input: unknown, n: number): PydanticError => ({ type: 'string_too_short', loc, msg: MSG.string_too_short(n), input, ctx: { min_length: n } }),
  tooLong: (loc: Loc, input: unknown, n: number): PydanticError => ({ type: 'string_too_long', loc, msg: MSG.string_too_long(n), input, ctx: { max_length: n } }),
  pattern: (loc: Loc, input: unknown, p: string): PydanticError => ({ type: 'string_pattern_mismatch', loc, msg: MSG.string_pattern_mismatch(p), input, ctx: { pattern: p } }),
  listType: (loc: Loc, input: unknown): PydanticError => ({ type: 'list_type', loc, msg: MSG.list_type, input }),
  dictType: (loc: Loc, input: unknown): PydanticError => ({ type: 'dict_type', loc, msg: MSG.dict_type, input }),
  floatParsing: (loc: Loc, input: unknown): PydanticError => ({ type: 'float_parsing', loc, msg: MSG.float_parsing, input }),
  floatType: (loc: Loc, input: unknown): PydanticError => ({ type: 'float_type', loc, msg: MSG.float_type, input }),
  modelType: (loc: Loc, input: unknown): PydanticError => ({ type: 'model_attributes_type', loc, msg: MSG.model_attributes_type, input }),
  jsonInvalid: (pos: number, error: string): PydanticError => ({ type: 'json_invalid', loc: ['body', pos], msg: MSG.json_invalid, input: {}, ctx: { error } }),
  uploadExpected: (loc: Loc, input: string): PydanticError => ({ type: 'value_error', loc, msg: MSG.value_error_upload, input, ctx: { error: {} } }),
  /** Pydantic quotes the discriminator's name and each tag as Python's repr of a str would: 'type'. */
  unionTagInvalid: (loc: Loc, input: unknown, property: string, tag: string, tags: readonly string[]): PydanticError => {
    const discriminator = `'${property}'`;
    const expected = tags.map((t) => `'${t}'`).join(', ');
    return { type: 'union_tag_invalid', loc, msg: MSG.union_tag_invalid(tag, discriminator, expected), input, ctx: { discriminator, tag, expected_tags: expected } };
  },
  unionTagNotFound: (loc: Loc, input: unknown, property: string): PydanticError => ({ type: 'union_tag_not_found', loc, msg: MSG.union_tag_not_found(`'${property}'`), input, ctx: { discriminator: `'${property}'` } }),
};
