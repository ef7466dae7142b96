# cloud-browser-mock as a container: a sidecar for CI jobs and local development.
#   docker build -t cloud-browser-mock .
#   docker run --rm -p 8000:8000 cloud-browser-mock
# Debian-based (not Alpine) so that the image matches what the CI smoke test can imitate offline,
# and a plain tag (no digest) for the same reason; see ../shared/tools/docker-smoke.sh.

# Stage 1: install every dependency and compile the TypeScript.
FROM node:22-bookworm-slim AS build
WORKDIR /app
# Scarf (a dependency of swagger-ui-dist) reports installs over the network; there is no need.
ENV SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY scripts/build-cli.mjs ./scripts/
# tsc, then the command's bundle (dist/bin: what the entrypoint runs; see scripts/build-cli.mjs).
RUN npx tsc -p tsconfig.json && node scripts/build-cli.mjs

# Stage 2: production dependencies only (no TypeScript, jest or swc in the final image).
FROM node:22-bookworm-slim AS prod-deps
WORKDIR /app
ENV SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force \
 && rm -f node_modules/swagger-ui-dist/swagger-ui-es-bundle* node_modules/swagger-ui-dist/swagger-ui.js*
# (/docs serves swagger-ui-bundle.js; the ES-module and plain builds of Swagger UI, 7 MB with
# their maps, are never loaded.)

# Stage 3: what runs.
FROM node:22-bookworm-slim
WORKDIR /app
# Listen on every interface inside the container (the CLI's own default stays loopback), keep
# state in the volume below, and answer any Host name: other containers reach the mock by their
# service name (cloud-browser-mock:8000), which no fixed list can know. The price is that the
# DNS-rebinding protection is off in the image (docs/guarantees.md). Any CBM_* variable or flag
# can still override these.
ENV NODE_ENV=production \
    CBM_HOST=0.0.0.0 \
    CBM_PORT=8000 \
    CBM_DATA_DIR=/data \
    CBM_ALLOWED_HOSTS="*"
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/bin ./dist/bin
COPY package.json openapi.json control-plane.openapi.json README.md LICENSE ./
# The docs pages the README links to (as the npm package ships them; text only, no picture).
COPY docs/*.md ./docs/
COPY fixtures ./fixtures
# The data directory belongs to the unprivileged user the image runs as (uid 1000, "node").
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8000
# Slim images have no curl: probe with node itself, on the port the server was told to use.
# Every 3 s, so that a CI service container counts as healthy about 3 s after it starts (Docker
# 20.10 has no --start-interval); one probe costs a node start, ~40 ms of CPU.
HEALTHCHECK --interval=3s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.CBM_PORT || process.env.PORT || 8000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form, node as PID 1: SIGTERM (docker stop) reaches the CLI, which closes and exits 0.
# Arguments after the image name are CLI flags: docker run cloud-browser-mock --scenario empty
ENTRYPOINT ["node", "dist/bin/cli.js"]
