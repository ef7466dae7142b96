/**
 * Text inside HTML and XML, written once: the escaping every page and report uses, and the JUnit
 * XML document the coverage and drift reports share (CI tools read both with one parser).
 */

/** Text safe in an element or a quoted attribute of HTML or XML: each markup character as a numeric reference. */
export const escapeMarkup = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

type Attributes = Record<string, string | number>;

/** ` k="v"` for each attribute, in the order given, values escaped. */
const attributes = (attrs: Attributes) =>
  Object.entries(attrs)
    .map(([k, v]) => ` ${k}="${escapeMarkup(String(v))}"`)
    .join('');

/** One `<testcase>`, with its content (a `<failure>`, `<skipped/>`, `<system-out>`) or empty. */
export function junitCase(classname: string, name: string, content = ''): string {
  const head = `<testcase${attributes({ classname, name })}`;
  return content ? `${head}>${content}</testcase>` : `${head}/>`;
}

/** A JUnit XML document of one suite: `<testsuites>` and `<testsuite>` with the attributes given. */
export function junitDocument(suites: Attributes, suite: Attributes, cases: string[]): string {
  return ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites${attributes(suites)}>`, `  <testsuite${attributes(suite)}>`, ...cases.map((c) => `    ${c}`), '  </testsuite>', '</testsuites>', ''].join('\n');
}
