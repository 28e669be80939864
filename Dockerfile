# The rayjob-guard webhook image.
# Stage 1 builds the binary with Debian 12's toolchain and libraries (tests off). Stage 2 is
# `scratch` holding only the binary, the shared libraries `ldd` reports for it (with the dynamic
# loader), Debian's release files (/etc/debian_version, /usr/lib/os-release and its /etc link), and
# passwd/group entries for the numeric non-root user 65532: no shell, no package manager.
# Scanners still see what it carries, distroless-style: each Debian package a file comes from has
# its dpkg status stanza in /var/lib/dpkg/status.d/PKG and the checksums of the files shipped in
# status.d/PKG.md5sums (trivy, grype/syft read these with the release files), and an SPDX 2.3 SBOM
# of the image sits at /usr/share/doc/rayjob-guard/sbom.spdx.json (label io.rayjob-guard.sbom).
# scripts/image-sbom.sh writes both from the build stage's dpkg database and fails the build when a
# file of the image belongs to no package or differs from what dpkg installed.
#
#   podman build --pull=never -t localhost/rayjob-guard:dev .      (CONTAINERS_CONF=containers.conf)
#   docker build -t rayjob-guard:dev .
#
# BASE_REPO:BASE_TAG must be a Debian 12 (bookworm) image whose apt sources reach a Debian mirror;
# test/ship/image_test.sh makes one with debootstrap when no registry is reachable.
ARG BASE_REPO=debian
ARG BASE_TAG=bookworm-slim
# The release and its source revision: the labels, and the SBOM's rayjob-guard package.
ARG VERSION=0.1.0
ARG REVISION=unknown

FROM ${BASE_REPO}:${BASE_TAG} AS build
ARG BUILD_JOBS=2
# Extra CMake cache settings, e.g. -DCMAKE_BUILD_TYPE=Release. Warnings stay errors by default.
ARG CMAKE_EXTRA_ARGS=""
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      g++ cmake make binutils libboost-dev libssl-dev rapidjson-dev libspdlog-dev libfmt-dev \
      libyaml-dev prometheus-cpp-dev libvalijson-dev libmimalloc-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . /src
# RelWithDebInfo (-O2, then stripped): the optimisation level the test suite builds and tests.
RUN cmake -S /src -B /build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRJG_BUILD_TESTS=OFF \
      -DRJG_BUILD_BENCHMARKS=OFF -DRJG_BUILD_FUZZERS=OFF ${CMAKE_EXTRA_ARGS} \
 && cmake --build /build -j "${BUILD_JOBS}" --target rayjob-guard \
 && strip --strip-unneeded /build/rayjob-guard
# The runtime root: the binary plus exactly the shared objects the loader resolves for it, copied
# (symlinks dereferenced) to the paths ldd printed, so the loader finds them without ld.so.cache;
# and base-files' release files, by which scanners know the distribution (Debian 12).
RUN set -eu; \
    mkdir -p /rootfs/usr/local/bin /rootfs/etc /rootfs/tmp; \
    chmod 1777 /rootfs/tmp; \
    cp /build/rayjob-guard /rootfs/usr/local/bin/rayjob-guard; \
    for lib in $(ldd /build/rayjob-guard | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | sort -u); do \
      cp --parents -L "$lib" /rootfs/; \
    done; \
    if ldd /build/rayjob-guard | grep -q 'not found'; then ldd /build/rayjob-guard; exit 1; fi; \
    cp --parents /etc/debian_version /usr/lib/os-release /rootfs/; \
    ln -s ../usr/lib/os-release /rootfs/etc/os-release; \
    echo 'nonroot:x:65532:65532:nonroot:/nonexistent:/sbin/nologin' > /rootfs/etc/passwd; \
    echo 'nonroot:x:65532:' > /rootfs/etc/group
# The package metadata: status.d and the SBOM (declared here, VERSION and REVISION leave the
# compile cached). Every other file of /rootfs must be a file of an installed package.
ARG VERSION
ARG REVISION
RUN bash /src/scripts/image-sbom.sh --rootfs /rootfs --name rayjob-guard \
      --version "${VERSION}" --revision "${REVISION}" --binary /usr/local/bin/rayjob-guard \
      --ours /etc/passwd --ours /etc/group

FROM scratch
ARG VERSION
ARG REVISION
# base.name stays scratch: no layer of a Debian image is under this one, only files of its packages.
LABEL org.opencontainers.image.title="rayjob-guard" \
      org.opencontainers.image.description="Validating admission webhook for KubeRay RayJobs: quota, reap TTLs, image contract" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.base.name="scratch" \
      io.rayjob-guard.sbom="/usr/share/doc/rayjob-guard/sbom.spdx.json" \
      io.rayjob-guard.sbom.format="SPDX-2.3+json" \
      io.rayjob-guard.dpkg.status="/var/lib/dpkg/status.d"
COPY --from=build /rootfs/ /
USER 65532:65532
EXPOSE 8443 8080
ENTRYPOINT ["/usr/local/bin/rayjob-guard"]
CMD ["serve", "--tls-cert", "/etc/rayjob-guard/tls/tls.crt", "--tls-key", "/etc/rayjob-guard/tls/tls.key", "--policy", "/etc/rayjob-guard/policy/policy.yaml", "--listen", "0.0.0.0:8443", "--probe-listen", "0.0.0.0:8080", "--log-format", "json"]
