# The mediaflow image: `worker` by default; docker-compose.yml also runs the emulator from it.
# TypeScript runs through tsx (a runtime dependency), so there is no build stage.
FROM node:20-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY . .
# With a folder as output.dir downloads land under /app (e.g. /app/out, a volume you mount); the
# compose setup writes to S3 instead. Run as the unprivileged `node` user.
RUN mkdir -p /app/out && chown node:node /app/out
USER node
# The heap cap: worker/create-worker.ts, WORKER_NODE_FLAGS.
CMD ["node", "--max-old-space-size=256", "bin/mediaflow.js", "worker"]
