#!/usr/bin/env bash
# Prepares an arm64 Node.js to run the arm64 bundle under user-mode emulation
# (qemu-user, no emulated system): Debian's arm64 `nodejs` and the shared
# libraries it needs, downloaded with a private apt configuration (the host's
# own apt setup is left alone) and unpacked into ROOT, and the kernel's binfmt
# handler for arm64 executables, so that the worker processes and ffmpeg the
# runtime starts run emulated too. Prints the node binary's path.
#
#   test/release/arm64-node.sh ROOT
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 ROOT" >&2; exit 2; }
ROOT=$(mkdir -p "$1" && cd "$1" && pwd)
# Node.js 20.19 or later is needed: Debian 13 (trixie) has it.
SUITE=${VIGIL_ARM64_SUITE:-trixie}
log() { echo "arm64-node: $*" >&2; }

if [ ! -x "$ROOT/sysroot/usr/bin/node" ]; then
  apt_dir="$ROOT/apt"
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/sources.list.d" "$apt_dir/preferences.d"
  : > "$apt_dir/status"
  # The Debian mirror this machine already uses, for another suite and architecture.
  mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -1)
  [ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) { print $i; exit } }' /etc/apt/sources.list 2>/dev/null)
  [ -n "$mirror" ] || { log "no Debian mirror found in the apt sources"; exit 1; }
  echo "deb [arch=arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $SUITE main" > "$apt_dir/sources.list"
  apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=$apt_dir/sources.list.d"
    -o "Dir::Etc::Preferences=$apt_dir/preferences" -o "Dir::Etc::PreferencesParts=$apt_dir/preferences.d"
    -o "Dir::State=$apt_dir" -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::State::status=$apt_dir/status"
    -o "Dir::Cache=$apt_dir/cache" -o APT::Architecture=arm64 -o APT::Architectures::=arm64
    -o Debug::NoLocking=1 -o APT::Install-Recommends=0 -o APT::Sandbox::User=root)
  log "downloading $SUITE's arm64 nodejs and its libraries"
  apt-get "${apt_opts[@]}" -qq update
  # With an empty package status apt downloads the whole dependency closure.
  apt-get "${apt_opts[@]}" -qq -y install --download-only nodejs >/dev/null
  rm -rf "$ROOT/sysroot"
  mkdir -p "$ROOT/sysroot"
  for deb in "$apt_dir"/cache/archives/*.deb; do dpkg-deb -x "$deb" "$ROOT/sysroot"; done
  # merged /usr: the loader is looked up as /lib/ld-linux-aarch64.so.1
  for d in lib bin sbin; do [ -e "$ROOT/sysroot/$d" ] || ln -s "usr/$d" "$ROOT/sysroot/$d"; done
  rm -rf "$apt_dir/cache/archives"
fi

# binfmt: arm64 executables started by the runtime (workers, ffmpeg) run through qemu.
qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)
[ -n "$qemu" ] || { log "qemu-aarch64 not found (Debian package qemu-user-static)"; exit 1; }
binfmt=/proc/sys/fs/binfmt_misc
[ -e "$binfmt/register" ] || mount -t binfmt_misc binfmt_misc "$binfmt" 2>/dev/null || { log "cannot mount $binfmt"; exit 1; }
if ! grep -qs '^enabled' "$binfmt/qemu-aarch64"; then
  if command -v update-binfmts >/dev/null && update-binfmts --display qemu-aarch64 >/dev/null 2>&1; then
    update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
  fi
  if ! grep -qs '^enabled' "$binfmt/qemu-aarch64"; then
    # the ELF header of an aarch64 executable, as Debian's qemu-user-static registers it
    printf '%s' ":qemu-aarch64:M::\\x7fELF\\x02\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\\x00\\xb7\\x00:\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\x00\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xfe\\xff\\xff\\xff:$qemu:F" > "$binfmt/register"
  fi
fi
grep -qs '^enabled' "$binfmt/qemu-aarch64" || { log "no binfmt handler for arm64"; exit 1; }
echo "$ROOT/sysroot/usr/bin/node"
