/** The OAuth2 password-flow token endpoint (CONTRACT §3). */
import { issueToken } from './auth.js';
import { DETAIL, HttpError } from '../errors/http-error.js';
import type { Handler, OperationDescriptor } from './types.js';

export const createToken: Handler<'createToken'> = async ({ body }, ctx) => {
  const password = ctx.auth.users.get(body.username);
  if (password === undefined || password !== body.password) throw new HttpError(400, DETAIL.badLogin);
  return { status: 200, json: { access_token: issueToken(body.username, ctx.auth.signingKey, ctx.clock.now(), ctx.auth.tokenTtlMs), token_type: 'bearer' } };
};

export const createTokenDescriptor: OperationDescriptor<'createToken'> = {
  prefer: { 400: DETAIL.badLogin, 413: DETAIL.bodyTooLarge },
  // The password is the secret; `client_secret` is not shown either.
  secretBody: { shown: ['grant_type', 'username', 'scope', 'client_id'] },
};
