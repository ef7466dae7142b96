/**
 * Python names for the classes and fields of inferred models, derived from JSON keys
 * deterministically. Only ASCII letters, digits and `_` are used: Python normalises non-ASCII
 * identifiers with NFKC, so two different keys could otherwise silently become one name.
 */

/** `keyword.kwlist` of Python 3 (soft keywords such as `match` and `type` are valid names). */
export const PYTHON_KEYWORDS: ReadonlySet<string> = new Set([
  'False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue', 'def', 'del',
  'elif', 'else', 'except', 'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is', 'lambda', 'nonlocal',
  'not', 'or', 'pass', 'raise', 'return', 'try', 'while', 'with', 'yield',
]);

/**
 * Field names that would break a model although they are identifiers: the builtin types the
 * annotations name (a field `str` with a default would rebind `str` for the fields after it) and
 * the public attributes of Pydantic's BaseModel (`model_config` is an error, the others shadow).
 */
const RESERVED_FIELD_NAMES: ReadonlySet<string> = new Set([
  'str', 'int', 'float', 'bool', 'list',
  'construct', 'copy', 'dict', 'from_orm', 'json', 'parse_file', 'parse_obj', 'parse_raw', 'schema', 'schema_json',
  'update_forward_refs', 'validate', 'model_computed_fields', 'model_config', 'model_construct', 'model_copy',
  'model_dump', 'model_dump_json', 'model_extra', 'model_fields', 'model_fields_set', 'model_json_schema',
  'model_parametrized_name', 'model_post_init', 'model_rebuild', 'model_validate', 'model_validate_json',
  'model_validate_strings',
]);

/** A plain identifier that can be a keyword argument as written (ASCII, not a keyword). */
export function isPlainIdentifier(s: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(s) && !PYTHON_KEYWORDS.has(s);
}

/** The words of a key: accents dropped, camelCase split, anything but ASCII letters and digits separates. */
function keyWords(key: string): string[] {
  return key
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
}

/**
 * Names handed out within one scope (the classes of a script, the fields of a class): a name
 * already taken gets the first free numeric suffix, in the order names are asked for.
 */
export class NameScope {
  private readonly taken: Set<string>;
  constructor(reserved: Iterable<string> = []) {
    this.taken = new Set(reserved);
  }

  claim(base: string, numbered: (n: number) => string): string {
    let name = base;
    for (let n = 2; this.taken.has(name); n++) name = numbered(n);
    this.taken.add(name);
    return name;
  }
}

/**
 * A snake_case field name for a JSON key: `nextPage` → `next_page`, `from` → `from_`,
 * `2fa` → `field_2fa`, `日本` → `field`. Lower case, so it can never equal a class name.
 */
export function fieldName(key: string, scope: NameScope): string {
  let base = keyWords(key).join('_').toLowerCase() || 'field';
  if (/^[0-9]/.test(base)) base = `field_${base}`;
  if (PYTHON_KEYWORDS.has(base) || RESERVED_FIELD_NAMES.has(base)) base = `${base}_`;
  return scope.claim(base, (n) => `${base}_${n}`);
}

/**
 * A PascalCase class name for a JSON key plus a suffix: (`transactions`, `Item`) →
 * `TransactionsItem`, (`billing_address`, ``) → `BillingAddress`. The scope holds the names the
 * script already uses, so a key can neither shadow an import nor repeat another class's name.
 */
export function className(key: string, suffix: string, scope: NameScope): string {
  let base = keyWords(key).map((w) => w[0].toUpperCase() + w.slice(1).toLowerCase()).join('') + suffix;
  if (base === '' || /^[0-9]/.test(base)) base = `Model${base}`;
  return scope.claim(base, (n) => `${base}${n}`);
}
