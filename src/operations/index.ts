/** operationId → handler. Typed as HandlerMap, so an operation without a handler fails to compile. */
import { createToken } from './token.js';
import { deleteSessionFile, downloadSessionFile, listSessionFiles, uploadSessionFile } from './session-files.js';
import { getSessionScript } from './workflow-code.js';
import { deleteMailbox, getMailbox, listMailboxes, syncMailboxes, updateMailbox } from './mailboxes.js';
import { deleteSecret, getSecret, listSecrets, storeSecret } from './secrets.js';
import type { HandlerMap } from './types.js';

export const handlers: HandlerMap = {
  createToken,
  listSessionFiles,
  uploadSessionFile,
  downloadSessionFile,
  deleteSessionFile,
  getSessionScript,
  listMailboxes,
  getMailbox,
  updateMailbox,
  syncMailboxes,
  deleteMailbox,
  storeSecret,
  listSecrets,
  getSecret,
  deleteSecret,
};
