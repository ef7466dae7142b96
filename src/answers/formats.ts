/**
 * String formats given to json-schema-faker per call, where its own are missing or not what the mock
 * needs: a date or time is the mock's clock (a frozen clock answers fixed ones); `duration` is
 * written in the one form validators accept (the generator's own can end in a bare `T`); `byte` is
 * base64; the OpenAPI and ajv-formats formats it does not know get a value of their form.
 */
import type { Random } from 'json-schema-faker';

type FormatGenerator = (random: Random) => string;
export type Formats = Record<string, FormatGenerator>;

const word = (random: Random) => Array.from({ length: random.int(3, 8) }, () => String.fromCharCode(97 + random.int(0, 25))).join('');

const FIXED: Record<string, FormatGenerator> = {
  duration: (random) => `P${random.int(0, 30)}DT${random.int(0, 23)}H${random.int(0, 59)}M${random.int(0, 59)}S`,
  byte: (random) => Buffer.from(Array.from({ length: random.int(1, 24) }, () => random.int(0, 255))).toString('base64'),
  url: (random) => `https://example.com/${word(random)}`,
  'uri-template': (random) => `https://example.com/${word(random)}/{id}`,
  regex: () => '^[a-z]+$',
  'json-pointer-uri-fragment': (random) => `#/${word(random)}`,
  password: (random) => `${word(random)}${random.int(100, 999)}`,
};

export function formatsAt(now: Date): Formats {
  const iso = now.toISOString();
  return {
    ...FIXED,
    'date-time': () => iso,
    'iso-date-time': () => iso,
    date: () => iso.slice(0, 10),
    time: () => iso.slice(11),
    'iso-time': () => iso.slice(11),
  };
}
