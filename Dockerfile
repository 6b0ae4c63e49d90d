# The platform image: Node 24 runs the TypeScript sources directly (type
# stripping), so the server has no build step. The Studio (a React app) is
# built in a stage of its own, with the devDependencies Vite needs, and only
# its files are kept. Use the image with DATABASE_URL; the embedded database
# is for local development.
FROM node:24-bookworm-slim AS studio
WORKDIR /app
COPY package.json package-lock.json ./
COPY studio ./studio
# npm ci runs the package's postinstall, which builds studio/dist.
RUN npm ci --no-audit --no-fund

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# The Studio's sources beside its build: the start checks the build against them (without Vite here, it never rebuilds).
COPY studio ./studio
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=studio /app/studio/dist ./studio/dist
COPY sql ./sql
COPY db ./db
COPY server ./server
COPY worker ./worker
RUN mkdir -p /data /app/migrations && chown node:node /data
ENV HOST=0.0.0.0 DATA_DIR=/data
EXPOSE 54321 54323
USER node
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||54321)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "server/main.ts"]
