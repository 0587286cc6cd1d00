#!/usr/bin/env bash
# Builds the Nova image with no registry access:
#   1. a base image FROM scratch holding a jlink'ed Java 17 runtime (from this machine's JDK) and the
#      shared libraries `ldd` lists for it and for RocksDB's JNI library, plus /etc/passwd and a /tmp;
#   2. the Nova image (deploy/Dockerfile) on that base.
# Usage: deploy/build-image.sh [--skip-maven]   (NOVA_IMAGE, NOVA_BASE_IMAGE, JAVA_HOME, MVN override)
# Needs: a running Docker engine, a JDK 17 with jmods (jlink), ldd, and the distribution built by Maven
# (built here unless --skip-maven). With registry access, `docker build deploy` alone uses Temurin.
set -euo pipefail

deploy="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$deploy")"
image="${NOVA_IMAGE:-nova:local}"
base="${NOVA_BASE_IMAGE:-nova-jre-base:17-local}"
java_home="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
# MVN: the Maven command, e.g. MVN="mvn -Dmaven.repo.local=/path/to/repo -o".
mvn="${MVN:-mvn}"

if [[ "${1:-}" != "--skip-maven" ]]; then
  (cd "$root" && $mvn -B -q -DskipTests -pl deploy -am install)
fi
[[ -d "$deploy/target/nova/lib" ]] || { echo "build-image: $deploy/target/nova is missing; run Maven" >&2; exit 1; }

work="$(mktemp -d /tmp/nova-base.XXXXXX)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
mkdir -p "$rootfs/opt" "$rootfs/etc" "$rootfs/tmp" "$work/rocksdb"
chmod 1777 "$rootfs/tmp"

# The modules Nova, gRPC/Netty, Ratis, RocksDB, Jackson and Logback need (jdeps misses reflective use).
modules=java.base,java.logging,java.management,java.naming,java.net.http,java.security.jgss,java.sql
modules+=,java.xml,java.desktop,java.instrument,jdk.unsupported,jdk.crypto.ec,jdk.management,jdk.zipfs
modules+=,jdk.naming.dns,java.security.sasl,jdk.crypto.cryptoki
"$java_home/bin/jlink" --module-path "$java_home/jmods" --add-modules "$modules" \
  --strip-debug --no-man-pages --no-header-files --compress=2 --output "$rootfs/opt/java"

# RocksDB's JNI library is extracted to /tmp at run time; resolve its libraries now.
rocks_jar="$(ls "$deploy"/target/nova/lib/rocksdbjni-*.jar | head -1)"
(cd "$work/rocksdb" && "$java_home/bin/jar" xf "$rocks_jar" librocksdbjni-linux64.so)

# Every shared library the runtime and RocksDB load, at the same path as on this machine.
{
  find "$rootfs/opt/java" -type f \( -name '*.so' -o -path '*/bin/*' \)
  echo "$work/rocksdb/librocksdbjni-linux64.so"
} | while read -r f; do ldd "$f" 2>/dev/null || true; done \
  | grep -oE '(/[^ ]+\.so[^ ]*)' | sort -u > "$work/libs"
# glibc loads these by name at run time (name service, threads); include them when present.
for extra in libnss_files.so.2 libnss_dns.so.2 libresolv.so.2 libgcc_s.so.1 libdl.so.2 librt.so.1 libpthread.so.0; do
  for dir in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64 /lib; do
    [[ -e "$dir/$extra" ]] && { echo "$dir/$extra" >> "$work/libs"; break; }
  done
done
sort -u "$work/libs" | while read -r lib; do
  [[ "$lib" == "$rootfs"* || "$lib" == "$work"* ]] && continue
  mkdir -p "$rootfs$(dirname "$lib")"
  cp -L "$lib" "$rootfs$lib"
  # Keep the path the dynamic linker asks for when it differs (e.g. /lib64/ld-linux-x86-64.so.2).
  real="$(readlink -f "$lib")"
  [[ "$real" != "$lib" ]] && { mkdir -p "$rootfs$(dirname "$real")"; cp -L "$lib" "$rootfs$real"; }
done

cat > "$rootfs/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/sbin/nologin
nova:x:10001:10001:nova:/var/lib/nova:/sbin/nologin
PASSWD
cat > "$rootfs/etc/group" <<'GROUP'
root:x:0:
nova:x:10001:
GROUP
echo 'hosts: files dns' > "$rootfs/etc/nsswitch.conf"

cat > "$work/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY rootfs/ /
ENV JAVA_HOME=/opt/java PATH=/opt/java/bin LANG=C.UTF-8
DOCKERFILE
docker build -q -t "$base" "$work" >/dev/null
echo "built base image $base ($(docker image inspect -f '{{.Size}}' "$base" | awk '{printf "%d MB", $1/1e6}'))"

docker build -q --build-arg BASE_IMAGE="$base" -t "$image" "$deploy" >/dev/null
echo "built image $image on $base"
