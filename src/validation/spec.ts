/**
 * A compiled form of the openapi.json schemas that the Pydantic-style validator walks. Only the
 * subset the contract uses is supported; anything else compiles to `any` (accepted as is).
 */
export type Spec =
  | { kind: 'string'; nullable: boolean; minLength?: number; maxLength?: number; pattern?: string; default?: unknown }
  | { kind: 'integer'; nullable: boolean; minimum?: number; maximum?: number; default?: unknown }
  | { kind: 'number'; nullable: boolean; minimum?: number; maximum?: number; default?: unknown }
  /** A free-form object (`dict[str, T]`): any keys, values checked against `values` when given. */
  | { kind: 'dict'; nullable: boolean; values?: Spec; default?: unknown }
  | { kind: 'boolean'; nullable: boolean; default?: unknown }
  | { kind: 'enum'; nullable: boolean; values: string[]; default?: unknown }
  | { kind: 'array'; nullable: boolean; items: Spec; default?: unknown }
  | { kind: 'object'; nullable: boolean; fields: FieldSpec[]; default?: unknown }
  | { kind: 'binary'; nullable: boolean; default?: unknown }
  | { kind: 'any'; nullable: boolean; default?: unknown };

export interface FieldSpec {
  name: string;
  required: boolean;
  spec: Spec;
}

type Schema = Record<string, any>;

export function compileSchema(schema: Schema, components: Record<string, Schema>, depth = 0): Spec {
  if (depth > 20) return { kind: 'any', nullable: true };
  const dflt = 'default' in schema ? { default: schema.default } : {};
  if (schema.$ref) {
    const name = String(schema.$ref).split('/').pop()!;
    return { ...compileSchema(components[name], components, depth + 1), ...dflt };
  }
  if (Array.isArray(schema.anyOf)) {
    const branches = schema.anyOf as Schema[];
    const nonNull = branches.filter((b) => b.type !== 'null');
    const nullable = nonNull.length < branches.length;
    if (nonNull.length === 1) return { ...compileSchema(nonNull[0], components, depth + 1), nullable, ...dflt };
    return { kind: 'any', nullable, ...dflt };
  }
  const nullable = false;
  if (Array.isArray(schema.enum)) return { kind: 'enum', nullable, values: schema.enum.map(String), ...dflt };
  switch (schema.type) {
    case 'string':
      if (schema.format === 'binary') return { kind: 'binary', nullable, ...dflt };
      return { kind: 'string', nullable, minLength: schema.minLength, maxLength: schema.maxLength, pattern: schema.pattern, ...dflt };
    case 'integer':
      return { kind: 'integer', nullable, minimum: schema.minimum, maximum: schema.maximum, ...dflt };
    case 'number':
      return { kind: 'number', nullable, minimum: schema.minimum, maximum: schema.maximum, ...dflt };
    case 'boolean':
      return { kind: 'boolean', nullable, ...dflt };
    case 'array':
      return { kind: 'array', nullable, items: compileSchema(schema.items ?? {}, components, depth + 1), ...dflt };
    case 'object': {
      if (!schema.properties && schema.additionalProperties !== false) {
        const values = typeof schema.additionalProperties === 'object' ? compileSchema(schema.additionalProperties, components, depth + 1) : undefined;
        return { kind: 'dict', nullable, values, ...dflt };
      }
      const required = new Set<string>(schema.required ?? []);
      const fields = Object.entries((schema.properties ?? {}) as Record<string, Schema>).map(([name, s]) => ({
        name,
        required: required.has(name),
        spec: compileSchema(s, components, depth + 1),
      }));
      return { kind: 'object', nullable, fields, ...dflt };
    }
    default:
      return { kind: 'any', nullable: true, ...dflt };
  }
}
