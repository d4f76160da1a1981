# SPDX-License-Identifier: GPL-3.0-or-later
# Multi-stage build: the WASM site, then the release server with the site embedded in it;
# the runtime image holds just that one binary.
FROM rust:1.95-bookworm AS build
WORKDIR /src
RUN rustup target add wasm32-unknown-unknown
# brotli for the precompressed assets; Node.js for npm's binaryen (wasm-opt).
RUN apt-get update && apt-get install -y --no-install-recommends brotli nodejs npm \
 && rm -rf /var/lib/apt/lists/*
COPY e2e/package.json e2e/package-lock.json e2e/
RUN cd e2e && npm ci --omit=optional --no-audit --no-fund
COPY Cargo.toml Cargo.lock deny.toml LICENSE README.md ./
COPY LICENSES LICENSES
# --cfg erase_components for every build (server and WASM must agree on hydration markers).
COPY .cargo .cargo
COPY app app
COPY crates crates
COPY frontend frontend
COPY server server
COPY migrations migrations
COPY style style
# The format reference the binary serves at /docs/formats.md.
COPY docs docs
COPY scripts scripts
RUN WB=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock) \
 && cargo install wasm-bindgen-cli --version "$WB"
RUN scripts/build-site && cargo build --profile dist -p perfline-server

FROM debian:bookworm-slim
# CA certificates for https webhooks and smtps:// alert mail.
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/*
RUN useradd --system --uid 10001 --home /data perfline && mkdir -p /data /app && chown perfline /data
COPY --from=build /src/target/dist/perfline /app/perfline
# The licence texts and what is ported from where; `perfline source` writes the source.
COPY --from=build /src/LICENSE /app/LICENSE
COPY --from=build /src/LICENSES /app/LICENSES
USER perfline
VOLUME /data
ENV PERFLINE_DB=/data/perfline.db PERFLINE_LISTEN=0.0.0.0:3000
EXPOSE 3000
# perfline handles SIGTERM itself (drain in-flight requests, close the database, exit 0), so it
# stops cleanly as PID 1 without an init; give `docker stop -t` more than --shutdown-timeout.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/app/perfline"]
