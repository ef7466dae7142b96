/**
 * The string literals of a TypeScript source, read by TypeScript's own scanner (comments skipped,
 * regular expressions and template texts told apart): what the source-scanning tests
 * (no-operation-literals, own-paths) check for literals that must live in one module.
 */
import { SyntaxKind } from 'typescript/unstable/ast';
import { createScanner } from 'typescript/unstable/ast/scanner';

/** Tokens after which a `/` divides; anywhere else it starts a regular expression. */
const ENDS_A_VALUE = new Set([
  SyntaxKind.Identifier,
  SyntaxKind.NumericLiteral,
  SyntaxKind.BigIntLiteral,
  SyntaxKind.StringLiteral,
  SyntaxKind.NoSubstitutionTemplateLiteral,
  SyntaxKind.TemplateTail,
  SyntaxKind.RegularExpressionLiteral,
  SyntaxKind.CloseParenToken,
  SyntaxKind.CloseBracketToken,
  SyntaxKind.CloseBraceToken,
  SyntaxKind.ThisKeyword,
  SyntaxKind.SuperKeyword,
  SyntaxKind.TrueKeyword,
  SyntaxKind.FalseKeyword,
  SyntaxKind.NullKeyword,
  SyntaxKind.PlusPlusToken,
  SyntaxKind.MinusMinusToken,
]);
const STRING_TOKENS = new Set([SyntaxKind.StringLiteral, SyntaxKind.NoSubstitutionTemplateLiteral, SyntaxKind.TemplateHead, SyntaxKind.TemplateMiddle, SyntaxKind.TemplateTail]);

/** Every string literal and template text of `text` (comments skipped), with its line. */
export function stringLiterals(text: string): { value: string; line: number }[] {
  const scanner = createScanner(true, undefined, text);
  const out: { value: string; line: number }[] = [];
  // What each open `{` belongs to: a block or object, or a template's `${`.
  const open: ('brace' | 'template')[] = [];
  let previous: SyntaxKind | undefined;
  for (let token = scanner.scan(); token !== SyntaxKind.EndOfFile; token = scanner.scan()) {
    if ((token === SyntaxKind.SlashToken || token === SyntaxKind.SlashEqualsToken) && !ENDS_A_VALUE.has(previous!)) token = scanner.reScanSlashToken();
    if (token === SyntaxKind.CloseBraceToken && open.at(-1) === 'template') {
      token = scanner.reScanTemplateToken(false);
      if (token === SyntaxKind.TemplateTail) open.pop();
    } else if (token === SyntaxKind.OpenBraceToken) open.push('brace');
    else if (token === SyntaxKind.CloseBraceToken) open.pop();
    else if (token === SyntaxKind.TemplateHead) open.push('template');
    if (STRING_TOKENS.has(token)) out.push({ value: scanner.getTokenValue(), line: text.slice(0, scanner.getTokenStart()).split('\n').length });
    previous = token;
  }
  return out;
}
