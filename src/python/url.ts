/**
 * URL decoding as the service's stack does it: uvicorn decodes the path with Python's
 * `urllib.parse.unquote` and Starlette parses the query with `parse_qsl(keep_blank_values=True)`.
 * Both keep an invalid escape such as `%zz` as written and turn invalid UTF-8 into U+FFFD.
 */
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

export function pyUnquote(s: string): string {
  if (!s.includes('%')) return s;
  let out = '';
  let bytes: number[] = [];
  const flush = () => {
    if (bytes.length) out += utf8.decode(new Uint8Array(bytes));
    bytes = [];
  };
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '%' && /^[0-9a-fA-F]{2}$/.test(s.slice(i + 1, i + 3))) {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
      continue;
    }
    const code = c.charCodeAt(0);
    if (code < 0x80) {
      // Python turns the ASCII run around escapes into bytes too, so a lone byte sequence and
      // the ASCII that follows decode together.
      bytes.push(code);
      continue;
    }
    flush();
    out += c;
  }
  flush();
  return out;
}

/** `parse_qsl(qs, keep_blank_values=True)`: pairs in order, `+` is a space, `&` separates. */
export function pyParseQsl(qs: string): [string, string][] {
  const pairs: [string, string][] = [];
  if (!qs) return pairs;
  for (const field of qs.split('&')) {
    if (!field) continue;
    const eq = field.indexOf('=');
    const name = eq < 0 ? field : field.slice(0, eq);
    const value = eq < 0 ? '' : field.slice(eq + 1);
    pairs.push([pyUnquote(name.replace(/\+/g, ' ')), pyUnquote(value.replace(/\+/g, ' '))]);
  }
  return pairs;
}

/** Query parameters as Starlette's QueryParams exposes them to FastAPI: a repeated name, the last wins. */
export function parseQuery(qs: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const [k, v] of pyParseQsl(qs)) m.set(k, v);
  return m;
}

/** Python's `quote(url, safe=":/%#?=@[]!$&'()*+,;")`, which Starlette applies to a redirect. */
export function pyQuoteUrl(url: string): string {
  return Array.from(new TextEncoder().encode(url))
    .map((b) => {
      const c = String.fromCharCode(b);
      return /[A-Za-z0-9_.\-~:/%#?=@[\]!$&'()*+,;]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}
