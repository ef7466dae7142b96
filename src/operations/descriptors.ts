/**
 * operationId → what the mock knows about that operation beyond openapi.json (see
 * OperationDescriptor): the details of its `Prefer` errors, whether its body carries a secret,
 * whether it answers with a file's bytes. Typed as DescriptorMap, so an operation without one
 * fails to compile. The journal, `Prefer` and the proxy read these, never an operation id.
 */
import type { OperationId } from '../generated/service-api.js';
import { createTokenDescriptor } from './token.js';
import { deleteSessionFileDescriptor, downloadSessionFileDescriptor, listSessionFilesDescriptor, uploadSessionFileDescriptor } from './session-files.js';
import { getSessionScriptDescriptor } from './workflow-code.js';
import { deleteMailboxDescriptor, getMailboxDescriptor, listMailboxesDescriptor, syncMailboxesDescriptor, updateMailboxDescriptor } from './mailboxes.js';
import { deleteSecretDescriptor, getSecretDescriptor, listSecretsDescriptor, storeSecretDescriptor } from './secrets.js';
import type { DescriptorMap, OperationDescriptor } from './types.js';

export const descriptors: DescriptorMap = {
  createToken: createTokenDescriptor,
  listSessionFiles: listSessionFilesDescriptor,
  uploadSessionFile: uploadSessionFileDescriptor,
  downloadSessionFile: downloadSessionFileDescriptor,
  deleteSessionFile: deleteSessionFileDescriptor,
  getSessionScript: getSessionScriptDescriptor,
  listMailboxes: listMailboxesDescriptor,
  getMailbox: getMailboxDescriptor,
  updateMailbox: updateMailboxDescriptor,
  syncMailboxes: syncMailboxesDescriptor,
  deleteMailbox: deleteMailboxDescriptor,
  storeSecret: storeSecretDescriptor,
  listSecrets: listSecretsDescriptor,
  getSecret: getSecretDescriptor,
  deleteSecret: deleteSecretDescriptor,
};

/** The descriptor of an operation, read without its id's type (a journal entry's id is a string). */
export interface AnyDescriptor {
  prefer: Partial<Record<400 | 404 | 413, string>>;
  secretBody?: { shown: readonly string[] };
  download?: true;
}

/** The descriptor of `id`, or undefined when it is not an operation of the service. */
export function descriptorOf(id: string | null | undefined): AnyDescriptor | undefined {
  return id != null && Object.hasOwn(descriptors, id) ? (descriptors[id as OperationId] as OperationDescriptor as AnyDescriptor) : undefined;
}
