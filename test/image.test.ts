/**
 * The inspector page as the Docker image serves it (issue 18: test the page from the image, not
 * only from the working tree): the built image started through the Testcontainers module, an
 * upload made, then /__mock/ui loaded in headless Chromium. Needs a Docker engine and the built
 * image: .ci/run runs it under docker-smoke.sh, which sets IMAGE_TAG; without IMAGE_TAG it is
 * skipped (a machine with Docker but no built image must not pull one).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { CloudBrowserMockContainer, type StartedCloudBrowserMockContainer } from '../src/testcontainers.js';
import { multipart } from './helpers.js';
import { HAS_CHROMIUM, expectInspectorWorks } from './inspector-check.js';

const IMAGE = process.env.IMAGE_TAG;
const run = IMAGE ? describe : describe.skip;
const title = IMAGE ? `the image ${IMAGE}` : 'the Docker image (skipped: IMAGE_TAG is not set; .ci/run sets it under docker-smoke.sh)';

run(title, () => {
  let mock: StartedCloudBrowserMockContainer;
  beforeAll(async () => {
    mock = await new CloudBrowserMockContainer(IMAGE).start();
  }, 120_000);
  afterAll(() => mock?.stop());

  test(`serves the inspector page at /__mock/ui, which shows an upload just made${HAS_CHROMIUM ? ' (in Chromium)' : ' [browser part SKIPPED: /usr/bin/chromium is missing]'}`, async () => {
    const upload = await fetch(`${mock.url}/sessions/sess_demo/files`, {
      method: 'POST',
      headers: { Authorization: 'Bearer sk_test_demo', 'Content-Type': 'multipart/form-data; boundary=img' },
      body: multipart('img', [{ name: 'file', filename: 'from-image.txt', type: 'text/plain', content: 'hello' }]),
    });
    expect(upload.status).toBe(201);
    await expectInspectorWorks(mock.url);
  }, 60_000);
});
