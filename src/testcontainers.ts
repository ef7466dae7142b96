/**
 * `cloud-browser-mock/testcontainers`: the mock's Docker image as a Testcontainers module, the way
 * WireMock and LocalStack ship theirs. A separate entry point, so `testcontainers` (an optional
 * peer dependency, 11.x or 12.0.0–12.0.1 on Node 20) is loaded only by those who import it.
 *
 * @example
 * ```ts
 * import { CloudBrowserMockContainer } from 'cloud-browser-mock/testcontainers';
 *
 * const mock = await new CloudBrowserMockContainer('cloud-browser-mock:latest').withScenario('paging').start();
 * await fetch(`${mock.url}/sessions`, …);
 * await mock.faults.add({ operationId: 'listSessionFiles', status: 503, times: 1 }); // a MockControl, as startMockServer's
 * await mock.stop();
 * ```
 */
import { statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { AbstractStartedContainer, GenericContainer, Wait, getContainerRuntimeClient, type StartedTestContainer } from 'testcontainers';
import { connectMockServer, type MockControl } from './control-client.js';
import { OWN_PATHS } from './primitives/own-paths.js';

/** The port the image listens on (its CBM_PORT). */
export const CONTAINER_PORT = 8000;
/** Where withSpec() puts the document inside the container (its name kept: .json, .yaml). */
export const CONTAINER_SPEC_DIR = '/cloud-browser-mock/spec';

export class CloudBrowserMockContainer extends GenericContainer {
  #adminToken: string | undefined;

  constructor(image = 'cloud-browser-mock:latest') {
    super(image);
    // In memory: a test container starts from its scenario and leaves nothing behind. The image
    // keeps state in /data otherwise; arguments after the image name are CLI flags.
    this.withExposedPorts(CONTAINER_PORT).withCommand(['--in-memory']).withWaitStrategy(Wait.forHttp(OWN_PATHS.health, CONTAINER_PORT).forStatusCode(200));
  }

  /** A built-in scenario (default, empty, paging, expiring, unhealthy-mailboxes); for a file, copy it in and pass its path. */
  withScenario(nameOrPath: string): this {
    return this.withEnvironment({ CBM_SCENARIO: nameOrPath });
  }

  /** open: any bearer token; strict: issued tokens and scenario API keys only. */
  withAuth(mode: 'open' | 'strict'): this {
    return this.withEnvironment({ CBM_AUTH: mode });
  }

  /**
   * Serves every operation of this OpenAPI document besides the mock's own (the CLI's `--spec`):
   * the file is copied into the container, read-only, when it starts (a copy, not a bind mount,
   * so it works with a remote Docker engine too).
   */
  withSpec(path: string): this {
    const source = resolve(path);
    if (!statSync(source, { throwIfNoEntry: false })?.isFile()) throw new Error(`withSpec: no file at ${source}`);
    const target = `${CONTAINER_SPEC_DIR}/${basename(source)}`;
    return this.withCopyFilesToContainer([{ source, target, mode: 0o444 }]).withEnvironment({ CBM_SPEC: target });
  }

  /** Guards /__mock with this token; the started container's handle sends it. */
  withAdminToken(token: string): this {
    this.#adminToken = token;
    return this.withEnvironment({ CBM_ADMIN_TOKEN: token });
  }

  override async start(): Promise<StartedCloudBrowserMockContainer> {
    // The mock answers only localhost, loopback and names it is told (issue 16's Host check);
    // with a remote Docker engine (DOCKER_HOST=tcp://ci-docker:2375) tests reach it by that name.
    const host = (await getContainerRuntimeClient()).info.containerRuntime.host;
    if (host !== 'localhost' && !/^(127\.|::1$|\[::1\]$)/.test(host)) {
      const given = this.environment.CBM_ALLOWED_HOSTS;
      this.withEnvironment({ CBM_ALLOWED_HOSTS: given ? `${given},${host}` : host });
    }
    const started = await super.start();
    const url = `http://${started.getHost()}:${started.getMappedPort(CONTAINER_PORT)}`;
    try {
      return new StartedCloudBrowserMockContainer(started, url, await connectMockServer(url, { adminToken: this.#adminToken }));
    } catch (e) {
      await started.stop();
      throw e;
    }
  }
}

/**
 * A started container is a MockControl, as startMockServer's MockServer is (`mock.faults.add(…)`,
 * `mock.reset()`), besides a Testcontainers container (`stop()`, `getMappedPort()`…).
 */
// The interface declares what the constructor copies in: every member of the handle, so one
// added to MockControl reaches this class without a line here.
export interface StartedCloudBrowserMockContainer extends MockControl {}
export class StartedCloudBrowserMockContainer extends AbstractStartedContainer {
  constructor(
    started: StartedTestContainer,
    /** Base URL of the mock from the host, e.g. `http://localhost:32768`. */
    readonly url: string,
    /** The same handle as the container itself (connectMockServer on its /__mock); kept from 0.2. */
    readonly control: MockControl,
  ) {
    super(started);
    const { url: _url, ...members } = control;
    Object.assign(this, members);
  }
}
