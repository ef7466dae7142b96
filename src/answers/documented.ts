/**
 * What an operation documents for one answer: which status (the lowest documented 2xx, or the one
 * `Prefer: code` names), which media type, its schema and its examples. Pure reading of the
 * document; `$ref`s to components (responses, examples) are followed.
 */
import { resolvePointer } from './prepare-schema.js';

/** `Prefer` asked for what the operation does not document; core answers it as the mock's Prefer error. */
export class PreferError extends Error {}

export interface DocumentedAnswer {
  status: number;
  /** The media type answered, or undefined when the status documents no content (a 204). */
  media?: string;
  schema?: unknown;
  /** Named examples in their documented order; a single `example` is named `example`. */
  examples: Array<[name: string, value: unknown]>;
  headers: Record<string, unknown>;
}

type Doc = Record<string, any>;

const follow = (document: Doc, node: any): any => {
  for (let hops = 0; node && typeof node === 'object' && typeof node.$ref === 'string' && hops < 16; hops++) node = resolvePointer(document, node.$ref);
  return node;
};

/** The status keys a response object may use for `status`: its own code, then `2XX`-style, then `default`. */
function keyFor(responses: Doc, status: number): string | undefined {
  return [String(status), `${String(status)[0]}XX`, `${String(status)[0]}xx`, 'default'].find((key) => responses[key] !== undefined);
}

/** Every status the operation documents, as numbers (a `2XX` range counts as its lowest code). */
export function documentedStatuses(operation: Doc): number[] {
  return Object.keys(operation.responses ?? {})
    .map((key) => (/^[1-5]xx$/i.test(key) ? Number(key[0]) * 100 : Number(key)))
    .filter((code) => Number.isInteger(code))
    .sort((a, b) => a - b);
}

/** The status answered without `Prefer: code`: the lowest documented 2xx, else 200 from `default`. */
export function defaultStatus(operation: Doc): number {
  return documentedStatuses(operation).find((code) => code >= 200 && code < 300) ?? 200;
}

/** JSON first (`application/json`, then any `+json`), else the first documented media type. */
function pickMedia(content: Doc): string | undefined {
  const medias = Object.keys(content);
  return medias.find((m) => m.split(';')[0].trim().toLowerCase() === 'application/json') ?? medias.find((m) => isJson(m)) ?? medias[0];
}

export const isJson = (media: string) => /^[^/]+\/([^;]*\+)?json\s*(;|$)/i.test(media.trim());

export function documentedAnswer(document: Doc, operation: Doc, operationId: string, status: number): DocumentedAnswer {
  const responses = (operation.responses ?? {}) as Doc;
  const key = keyFor(responses, status);
  if (key === undefined || (key === 'default' && status !== defaultStatus(operation))) {
    const listed = documentedStatuses(operation).join(', ') || 'none';
    throw new PreferError(`Prefer: code=${status} is not a status ${operationId} documents (it documents ${listed})`);
  }
  const response = follow(document, responses[key]) ?? {};
  const headers = (response.headers ?? {}) as Record<string, unknown>;
  const content = (response.content ?? {}) as Doc;
  const media = status === 204 || status === 304 ? undefined : pickMedia(content);
  if (media === undefined) return { status, examples: [], headers };
  const entry = content[media] ?? {};
  const examples: Array<[string, unknown]> = Object.entries((entry.examples ?? {}) as Doc).flatMap(([name, example]): Array<[string, unknown]> => {
    const resolved = follow(document, example);
    return resolved && 'value' in resolved ? [[name, resolved.value]] : [];
  });
  if (entry.example !== undefined) examples.unshift(['example', entry.example]);
  return { status, media, schema: entry.schema, examples, headers };
}

/** The example `Prefer: example=NAME` names, or the first; a name not documented is a PreferError. */
export function pickExample(answer: DocumentedAnswer, operationId: string, name: string | undefined): [string, unknown] | undefined {
  if (name === undefined) return answer.examples[0];
  const found = answer.examples.find(([n]) => n === name);
  if (found) return found;
  const listed = answer.examples.map(([n]) => n).join(', ') || 'none';
  throw new PreferError(`Prefer: example=${name} is not an example ${operationId} documents for ${answer.status} (it documents ${listed})`);
}
