#!/usr/bin/env bash
# Builds the self-contained release bundle of one architecture (x64 or arm64)
# from the built runtime (dist/runtime) into OUT_DIR: the folder
# vigil-<version>-linux-<arch>/ and its .tar.gz. The gateway then needs Node.js
# and nothing else: no compiler, no npm, no network.
#
# The production tree comes from package.json and the lock (npm ci --omit=dev)
# with the optional per-platform packages chosen for the target (--cpu/--os/--libc),
# so sharp's libvips and the ffmpeg/ffprobe binaries are the prebuilt ones their
# packages ship for that architecture. Addons with a binding.gyp are compiled
# here with node-gyp, for arm64 with Debian's aarch64 cross compiler: nothing is
# compiled under emulation nor on the gateway.
set -euo pipefail

usage() { echo "usage: $0 x64|arm64 OUT_DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
ARCH=$1
OUT_DIR=$(mkdir -p "$2" && cd "$2" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"

case "$ARCH" in
  x64)   ELF_MACHINE=62;  DEB_ARCH=amd64; CROSS= ;;
  arm64) ELF_MACHINE=183; DEB_ARCH=arm64; CROSS=aarch64-linux-gnu- ;;
  *) usage ;;
esac
HOST_ARCH=$(node -p process.arch)
[ -f dist/runtime/cli.js ] || { echo "build-bundle: nothing built; run npm run build" >&2; exit 1; }

VERSION=$(node -p "require('./package.json').version")
NAME="vigil-$VERSION-linux-$ARCH"
STAGE="$OUT_DIR/$NAME"
say() { echo "build-bundle[$ARCH]: $*"; }

rm -rf "$STAGE" "$STAGE.tar.gz"
mkdir -p "$STAGE/dist"

# ---- the runtime, its config, unit, model pack manifests and the installer ----
cp -R dist/runtime "$STAGE/dist/"
find "$STAGE/dist" -name '*.map' -delete
cp -R models config systemd package.json package-lock.json README.md "$STAGE/"
# The documentation by room, where README.md's links point (the Markdown files only).
find runtime test/bench -name '*.md' -exec cp --parents -t "$STAGE/" {} +
install -m 0755 runtime/release/install.sh "$STAGE/install.sh"

# ---- production node_modules, per-platform optional packages for the target ----
say "npm ci --omit=dev for linux/$ARCH"
(cd "$STAGE" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error \
  --os=linux --cpu="$ARCH" --libc=glibc)

# The prebuilt per-architecture parts npm packages ship: they must be there.
for pkg in "@img/sharp-linux-$ARCH" "@img/sharp-libvips-linux-$ARCH" \
           "@ffmpeg-installer/linux-$ARCH" "@ffprobe-installer/linux-$ARCH" "@koromix/koffi-linux-$ARCH"; do
  [ -d "$STAGE/node_modules/$pkg" ] || { echo "build-bundle: $pkg missing from the production tree" >&2; exit 1; }
done
# their postinstall (skipped with the other scripts) only makes the binaries executable
chmod 0755 "$STAGE/node_modules/@ffmpeg-installer/linux-$ARCH/ffmpeg" "$STAGE/node_modules/@ffprobe-installer/linux-$ARCH/ffprobe"

# ---- native addons compiled here for the target ----
# Only these two: sharp's addon and libvips, ffmpeg and ffprobe come prebuilt
# in their per-platform packages above (sharp's own binding.gyp is for
# building against a system libvips, which the gateway does not have).
COMPILED_ADDONS=(sqlite3 tfjs-tflite-node)
NODE_GYP=$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js
[ -f "$NODE_GYP" ] || NODE_GYP=$(command -v node-gyp)
# Node's own headers (npm on these machines is set to build against them): no download.
NODEDIR=${npm_config_nodedir:-}
[ -n "$NODEDIR" ] || { [ -f /usr/include/node/node_api.h ] && NODEDIR=/usr; }
gyp_env=()
if [ "$ARCH" != "$HOST_ARCH" ]; then
  command -v "${CROSS}g++" >/dev/null || { echo "build-bundle: ${CROSS}g++ not found (Debian package g++-aarch64-linux-gnu)" >&2; exit 1; }
  gyp_env=(CC="${CROSS}gcc" CXX="${CROSS}g++" LINK="${CROSS}g++" AR="${CROSS}ar")
fi
for pkg in "${COMPILED_ADDONS[@]}"; do
  dir="$STAGE/node_modules/$pkg"
  [ -f "$dir/binding.gyp" ] || continue # no longer a dependency
  if [ "$pkg" = tfjs-tflite-node ]; then
    # Its binding.gyp picks the prebuilt TFLite library it links (cc_deps/linux_amd64
    # or linux_arm64) by the architecture of the node running node-gyp, not by
    # the target: name the target instead.
    sed -i "s|'ARCH': '<!(node -e \"console.log(process.arch)\")'|'ARCH': '$ARCH'|" "$dir/binding.gyp"
    grep -q "'ARCH': '$ARCH'" "$dir/binding.gyp" || { echo "build-bundle: tfjs-tflite-node's binding.gyp changed; cannot set its ARCH" >&2; exit 1; }
  fi
  say "compiling $pkg"
  if ! (cd "$dir" && env "${gyp_env[@]}" node "$NODE_GYP" rebuild --arch="$ARCH" ${NODEDIR:+--nodedir="$NODEDIR"} -j 2 >"$OUT_DIR/$NAME.$pkg.log" 2>&1); then
    tail -40 "$OUT_DIR/$NAME.$pkg.log" >&2; echo "build-bundle: compiling $pkg failed (log: $OUT_DIR/$NAME.$pkg.log)" >&2; exit 1
  fi
  rm -f "$OUT_DIR/$NAME.$pkg.log"
  # keep the addon itself, drop build intermediates
  find "$dir/build" -mindepth 1 -maxdepth 1 ! -name Release -exec rm -rf {} +
  find "$dir/build/Release" -mindepth 1 ! -name '*.node' -exec rm -rf {} +
  "${CROSS}strip" --strip-unneeded "$dir"/build/Release/*.node
done
# Addon sources of every package (compiled above or shipped prebuilt)
while IFS= read -r gyp; do
  dir=$(dirname "$gyp")
  rm -rf "$dir/binding.gyp" "$dir/src" "$dir/deps" "$dir/binding"
  if [ "$(basename "$dir")" = src ]; then rm -rf "$dir"; fi # sharp keeps its gyp file in src/
done < <(find "$STAGE/node_modules" -name binding.gyp)

# Packages only the addon builds needed, and what nothing else reaches.
say "dropping build-only packages: $(node runtime/release/prune-build-only.mjs "$STAGE" | tr '\n' ' ')"

# tfjs-tflite-node: only the TFLite library of the target; its dependency
# @tensorflow/tfjs-tflite is the browser (WebAssembly) runtime, which the Node
# binding never loads.
TFL="$STAGE/node_modules/tfjs-tflite-node"
if [ -d "$TFL/cc_deps" ]; then
  find "$TFL/cc_deps" -mindepth 1 -maxdepth 1 ! -name "linux_${DEB_ARCH}" -exec rm -rf {} +
  [ -f "$TFL/cc_deps/linux_${DEB_ARCH}/libtensorflowlite_c.so" ] || { echo "build-bundle: no TFLite library for $ARCH" >&2; exit 1; }
fi
find "$STAGE/node_modules" -type d -path '*/@tensorflow/tfjs-tflite' -prune -exec rm -rf {} +

# The highlight captions use DejaVuSans.ttf, not the other faces of the family.
find "$STAGE/node_modules/dejavu-fonts-ttf" -name '*.ttf' ! -name DejaVuSans.ttf -delete

# ---- drop what never runs: docs, typings, source maps, TypeScript sources, tests ----
find "$STAGE/node_modules" -type d \( -name test -o -name tests -o -name __tests__ -o -name .github \
  -o -name example -o -name examples -o -name benchmark -o -name benchmarks -o -name coverage \) -prune -exec rm -rf {} +
find "$STAGE/node_modules" -type f \( -name '*.md' -o -name '*.markdown' -o -name '*.map' -o -name '*.ts' -o -name '*.mts' -o -name '*.cts' \
  -o -name '*_test.js' -o -name '*.test.js' -o -name '*.spec.js' -o -name 'tsconfig*.json' -o -name '.eslintrc*' -o -name '.npmignore' \
  -o -name '.travis.yml' -o -name '.editorconfig' -o -name 'yarn-error.log' -o -name '*.gyp' -o -name '*.gypi' \
  -o -name '*.o' -o -name '*.a' -o -name '*.cc' -o -name '*.h' \) -delete
find "$STAGE/node_modules" -type d -empty -delete

# ---- every native file must be of the target architecture ----
wrong=()
while IFS= read -r -d '' f; do
  [ "$(head -c 4 "$f" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ] || continue
  machine=$(od -An -tu2 -j18 -N2 "$f" | tr -d ' ')
  [ "$machine" = "$ELF_MACHINE" ] || wrong+=("$f (ELF machine $machine)")
done < <(find "$STAGE/node_modules" -type f -size +1k -print0)
if [ ${#wrong[@]} -gt 0 ]; then
  printf 'build-bundle: not built for %s:\n' "$ARCH" >&2; printf '  %s\n' "${wrong[@]}" >&2; exit 1
fi

# Every production dependency still loads (only where this machine can run the target).
if [ "$ARCH" = "$HOST_ARCH" ]; then
  (cd "$STAGE" && node --input-type=module -e "
    const fs = await import('node:fs');
    const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8'));
    for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) {
      const meta = JSON.parse(fs.readFileSync('node_modules/' + dep + '/package.json', 'utf8'));
      const hasEntry = meta.main || meta.exports || fs.existsSync('node_modules/' + dep + '/index.js');
      if (hasEntry) await import(dep); // a data-only package (the fonts) has nothing to import
    }")
fi

# ---- what is in it ----
{
  echo "vigil $VERSION linux-$ARCH, built $(date -u +%Y-%m-%dT%H:%M:%SZ)$(git rev-parse --short HEAD 2>/dev/null | sed 's/^/ from /')"
  echo "node $(node -p "require('./package.json').engines.node") needed on the gateway"
  # the newest C and C++ runtime versions the native libraries ask for
  for lib in GLIBC GLIBCXX; do
    need=$(find "$STAGE/node_modules" -type f \( -name '*.node' -o -name '*.so' -o -name '*.so.*' \) -exec grep -aoh "${lib}_[0-9][0-9.]*" {} + | sort -uV | tail -1)
    echo "${need/_/ } or later needed (native libraries)"
  done
  echo
  echo "bytes by part:"
  du -sb "$STAGE"/dist "$STAGE"/node_modules "$STAGE"/models "$STAGE"/config "$STAGE"/systemd | sed "s|$STAGE/||"
  echo
  echo "largest packages (bytes):"
  find "$STAGE/node_modules" -mindepth 1 -maxdepth 2 -type d ! -name '@*' ! -name '.bin' -path "$STAGE/node_modules/*" \
    | grep -v '/node_modules/[^@][^/]*/' | xargs du -sb | sort -rn | sed -n 1,15p | sed "s|$STAGE/node_modules/||"
  echo
  echo "packages: $(find "$STAGE/node_modules" -name package.json -not -path '*/node_modules/*/node_modules/*/*/package.json' | wc -l) package.json files"
} > "$STAGE/CONTENTS.txt"

tar -C "$OUT_DIR" -czf "$STAGE.tar.gz" "$NAME"
unpacked=$(du -sb "$STAGE" | cut -f1)
packed=$(stat -c %s "$STAGE.tar.gz")
say "$NAME.tar.gz: $((packed / 1048576)) MiB packed, $((unpacked / 1048576)) MiB unpacked"
cat "$STAGE/CONTENTS.txt"
