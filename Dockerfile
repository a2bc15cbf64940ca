# PMN Core container image. Build: docker build -t pmn-core .
# Run:   docker run -d --name pmn-core -p 5002:5002 -v pmn-data:/data pmn-core
# See docs/operations.md (this file has not been built on the project's machines: they run no Docker engine).

# 24.18.1: better-sqlite3 12 built against later Node 24 headers aborts (docs/decisions.md, 17).
ARG NODE_VERSION=24.18.1

# Stage 1: production dependencies, the native addon (native/: raw IP sockets, kernel SCTP), the bundled
# service and the web UI (dist/, by `npm ci`'s prepare step), with the toolchain they need (the addon
# always; better-sqlite3 when no prebuilt binary fits).
FROM node:${NODE_VERSION}-bookworm-slim AS dependencies
WORKDIR /app
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json binding.gyp ./
COPY native ./native
COPY scripts/build.mjs ./scripts/build.mjs
COPY src ./src
COPY ui ./ui
# The build needs the dev dependencies (Vite for the web UI); the runtime keeps only production ones.
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund

# Stage 2: the runtime, without compilers or npm caches, as an unprivileged user.
FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production \
    PMN_LISTEN=0.0.0.0:5002 \
    PMN_DB=/data/core.db
WORKDIR /app
RUN groupadd --system pmn \
  && useradd --system --gid pmn --home-dir /data --no-create-home --shell /usr/sbin/nologin pmn \
  && mkdir -p /data \
  && chown pmn:pmn /data \
  && chmod 0700 /data
COPY --from=dependencies /app/node_modules ./node_modules
COPY --from=dependencies /app/build/Release/pmn_native.node ./build/Release/pmn_native.node
COPY --from=dependencies /app/build/Release/pmn_upf.node ./build/Release/pmn_upf.node
COPY --from=dependencies /app/dist ./dist
COPY package.json ./
USER pmn
# The database, its WAL, the kept pre-restore copies and the credential key file (core.db.key).
VOLUME ["/data"]
EXPOSE 5002
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:5002/api/v1/status').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node runs the bundled service with the heap flags of src/node-flags.ts, as `npm start` does.
ENTRYPOINT ["node", "--max-old-space-size=640", "--max-semi-space-size=4", "dist/main.js"]
