# The platform image: Node 24 runs the TypeScript sources directly (type
# stripping), so there is no build step. Use it with DATABASE_URL; the
# embedded database is for local development.
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
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
