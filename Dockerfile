# syntax=docker/dockerfile:1
# The kimops image: Node 24 LTS and the package `npm pack` makes (the compiled dist/ and the files kimops reads at
# runtime, no TypeScript), with exactly the production dependencies package-lock.json pins, run as a non-root user.
# `docker build -t kimops .`, then `docker run --rm kimops --version`. docs/release.md.
#
# The base is named by tag here. The machine this file was written on reaches no container registry, so no digest
# of the tag could be read and checked there, and a digest copied from elsewhere would be one nobody here verified.
# The release workflow resolves the tag's digest when it builds and passes NODE_IMAGE=node:24-bookworm-slim@sha256:…,
# so each released image is built on, and labelled with, one exact base.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
# The dependencies first, so a change to the code reuses this layer.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# `npm pack` runs prepack, which builds dist/ afresh. The package is unpacked where it will run and given the
# production dependencies its npm-shrinkwrap.json pins (a copy of package-lock.json; `npm install <tarball>` would
# ignore it and resolve the transitive ones anew, `npm ci` in the unpacked folder does not). No install scripts:
# kimops needs none at runtime.
RUN mkdir -p /tmp/pack /opt/kimops \
 && npm pack --pack-destination /tmp/pack \
 && tar -xzf /tmp/pack/kimops-*.tgz -C /opt/kimops --strip-components=1 --no-same-owner \
 && cd /opt/kimops \
 && npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && node dist/cli/kimops.js --version

FROM ${NODE_IMAGE}
# npm, npx and corepack are not needed to run kimops: removed, with what they would bring.
RUN rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
 && mkdir -p /var/cache/kimops \
 && chown 65532:65532 /var/cache/kimops
COPY --from=build /opt/kimops /opt/kimops
RUN ln -s /opt/kimops/cli/kimops-bin.js /usr/local/bin/kimops
# kimops's caches (fetched landscape repos, the applier's plan cache) go here: safe to lose, a volume or emptyDir
# when the root file system is read-only.
ENV NODE_ENV=production \
    XDG_CACHE_HOME=/var/cache/kimops
# A numeric user (and group) with no account in the image: Kubernetes' runAsNonRoot can check it.
USER 65532:65532
WORKDIR /var/cache/kimops
ENTRYPOINT ["kimops"]
CMD ["--help"]
