# The mediaflow image: `worker` by default; docker-compose.yml also runs the emulator from it.
# TypeScript runs through tsx (a runtime dependency: docs/deployment.md, "Which Node"), so there is
# no build stage; `--omit=dev` leaves out the test tools and the `node` package (the image has its
# own Node).
FROM node:22-slim
WORKDIR /app
ENV NODE_ENV=production
# ffmpeg cuts and encodes the clips of derive steps (docs/derive.md); sharp ships its own libvips.
RUN apt-get update && apt-get install -y --no-install-recommends ffmpeg && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY . .
# With a folder as output.dir downloads land under /app (e.g. /app/out, a volume you mount); the
# compose setup writes to S3 instead. Run as the unprivileged `node` user.
RUN mkdir -p /app/out && chown node:node /app/out
USER node
# The heap cap and malloc arenas: worker/create-worker.ts, WORKER_NODE_FLAGS and WORKER_ENV.
ENV MALLOC_ARENA_MAX=2
CMD ["node", "--max-old-space-size=256", "--max-semi-space-size=8", "bin/mediaflow.js", "worker"]
