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
 * await mock.control.faults.add({ operationId: 'listSessionFiles', status: 503, times: 1 });
 * await mock.stop();
 * ```
 */
import { AbstractStartedContainer, GenericContainer, Wait, getContainerRuntimeClient, type StartedTestContainer } from 'testcontainers';
import { connectMockServer, type MockControl } from './control-client.js';

/** The port the image listens on (its CBM_PORT). */
export const CONTAINER_PORT = 8000;

export class CloudBrowserMockContainer extends GenericContainer {
  #adminToken: string | undefined;

  constructor(image = 'cloud-browser-mock:latest') {
    super(image);
    // In memory: a test container starts from its scenario and leaves nothing behind. The image
    // keeps state in /data otherwise; arguments after the image name are CLI flags.
    this.withExposedPorts(CONTAINER_PORT).withCommand(['--in-memory']).withWaitStrategy(Wait.forHttp('/health', CONTAINER_PORT).forStatusCode(200));
  }

  /** A built-in scenario (default, empty, paging, expiring, unhealthy-mailboxes); for a file, copy it in and pass its path. */
  withScenario(nameOrPath: string): this {
    return this.withEnvironment({ CBM_SCENARIO: nameOrPath });
  }

  /** open: any bearer token; strict: issued tokens and scenario API keys only. */
  withAuth(mode: 'open' | 'strict'): this {
    return this.withEnvironment({ CBM_AUTH: mode });
  }

  /** Guards /__mock with this token; the started container's `control` sends it. */
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

export class StartedCloudBrowserMockContainer extends AbstractStartedContainer {
  constructor(
    started: StartedTestContainer,
    /** Base URL of the mock from the host, e.g. `http://localhost:32768`. */
    readonly url: string,
    /** The control handle (connectMockServer) on this container's /__mock. */
    readonly control: MockControl,
  ) {
    super(started);
  }
}
