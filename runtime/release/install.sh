#!/bin/sh
# Installs this Vigil bundle on a gateway: no compiler, no npm, no network.
# Copies the runtime to PREFIX, the commented config to SYSCONFDIR (never
# overwriting gateway.yaml), creates STATEDIR and the system user, and installs,
# enables and (re)starts the systemd unit. With DESTDIR set (packaging, tests)
# or without root it only writes the files. Same layout as `make install`.
#
#   sudo ./install.sh [--prefix DIR] [--sysconfdir DIR] [--statedir DIR] [--node PATH]
set -eu

PREFIX=/opt/vigil
SYSCONFDIR=/etc/vigil
STATEDIR=/var/lib/vigil
UNITDIR=/etc/systemd/system
UDEVRULESDIR=/etc/udev/rules.d
BINDIR=/usr/local/bin
NODE=$(command -v node || true)
DESTDIR=${DESTDIR:-}

while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) PREFIX=$2; shift 2 ;;
    --sysconfdir) SYSCONFDIR=$2; shift 2 ;;
    --statedir) STATEDIR=$2; shift 2 ;;
    --node) NODE=$2; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "install: unknown option $1" >&2; exit 2 ;;
  esac
done

BUNDLE=$(cd "$(dirname "$0")" && pwd)
fail() { echo "install: $*" >&2; exit 1; }
LIVE=
[ -z "$DESTDIR" ] && [ "$(id -u)" = 0 ] && LIVE=1

case "$PREFIX" in /?*) ;; *) fail "PREFIX must be an absolute path below /" ;; esac
[ -f "$BUNDLE/dist/runtime/cli.js" ] || fail "$BUNDLE is not a Vigil bundle"

# The bundle's native parts are for one architecture.
bundle_arch=$(sed -n 's/^vigil [^ ]* linux-\([a-z0-9]*\),.*/\1/p' "$BUNDLE/CONTENTS.txt")
case "$(uname -m)" in x86_64) machine=x64 ;; aarch64|arm64) machine=arm64 ;; *) machine=$(uname -m) ;; esac
if [ "$bundle_arch" != "$machine" ]; then
  [ -n "$DESTDIR" ] || fail "this bundle is for linux-$bundle_arch, this machine is $machine"
  echo "install: warning: a linux-$bundle_arch bundle staged on $machine" >&2
fi

# Node.js: system-wide (the unit hides /home and /root) and recent enough.
[ -n "$NODE" ] || fail "node not found; install Node.js 20.19 or later, or pass --node /path/to/node"
case "$NODE" in /root/*|/home/*) echo "install: warning: $NODE is in a home folder, which the unit hides (ProtectHome); install Node.js system-wide" >&2 ;; esac
wanted=$(sed -n 's/.*"node": *">=\([0-9.]*\)".*/\1/p' "$BUNDLE/package.json")
if version=$("$NODE" -p 'process.versions.node' 2>/dev/null); then
  if ! "$NODE" -e '
    const [a, b] = process.argv.slice(1).map((v) => v.split(".").map(Number));
    process.exit(a[0] > b[0] || (a[0] === b[0] && (a[1] ?? 0) >= (b[1] ?? 0)) ? 0 : 1);' "$version" "$wanted"; then
    fail "Node.js $version is older than the $wanted this bundle needs"
  fi
elif [ -z "$DESTDIR" ]; then
  fail "$NODE does not run"
fi

if [ -n "$LIVE" ] && [ -d /run/systemd/system ]; then systemctl stop vigil.service 2>/dev/null || true; fi

rm -rf "$DESTDIR$PREFIX"
install -d -m 0755 "$DESTDIR$PREFIX"
cp -R "$BUNDLE/dist" "$BUNDLE/node_modules" "$BUNDLE/models" "$BUNDLE/config" \
  "$BUNDLE/package.json" "$BUNDLE/README.md" "$BUNDLE/CONTENTS.txt" "$DESTDIR$PREFIX/"
# the documentation by room, where README.md's links point
cp -R "$BUNDLE/runtime" "$BUNDLE/test" "$DESTDIR$PREFIX/"
install -d -m 0755 "$DESTDIR$PREFIX/systemd"
install -m 0644 "$BUNDLE/systemd/README.md" "$DESTDIR$PREFIX/systemd/README.md"
install -d -m 0755 "$DESTDIR$SYSCONFDIR"
install -d -m 0750 "$DESTDIR$SYSCONFDIR/secrets"
install -m 0644 "$BUNDLE/config/gateway.example.yaml" "$DESTDIR$SYSCONFDIR/gateway.example.yaml"
[ -e "$DESTDIR$SYSCONFDIR/gateway.yaml" ] || install -m 0640 "$BUNDLE/config/gateway.example.yaml" "$DESTDIR$SYSCONFDIR/gateway.yaml"
install -d -m 0750 "$DESTDIR$STATEDIR"
install -d -m 0755 "$DESTDIR$UNITDIR" "$DESTDIR$UDEVRULESDIR" "$DESTDIR$BINDIR"
sed -e "s|@NODE@|$NODE|g" -e "s|@PREFIX@|$PREFIX|g" -e "s|@SYSCONFDIR@|$SYSCONFDIR|g" -e "s|@STATEDIR@|$STATEDIR|g" \
  "$BUNDLE/systemd/vigil.service" > "$DESTDIR$UNITDIR/vigil.service"
chmod 0644 "$DESTDIR$UNITDIR/vigil.service"
install -m 0644 "$BUNDLE/systemd/99-vigil-coral.rules" "$DESTDIR$UDEVRULESDIR/99-vigil-coral.rules"
printf '#!/bin/sh\nexec %s %s/dist/runtime/cli.js "$@"\n' "$NODE" "$PREFIX" > "$DESTDIR$BINDIR/vigil"
chmod 0755 "$DESTDIR$BINDIR/vigil"

if [ -n "$LIVE" ]; then
  id -u vigil >/dev/null 2>&1 || useradd --system --user-group --home-dir "$STATEDIR" --no-create-home --shell /usr/sbin/nologin vigil
  chown -R vigil:vigil "$STATEDIR"
  chown root:vigil "$SYSCONFDIR/gateway.yaml" "$SYSCONFDIR/secrets"
  if command -v udevadm >/dev/null; then udevadm control --reload-rules && udevadm trigger --subsystem-match=usb --subsystem-match=apex; fi
  if [ -d /run/systemd/system ]; then systemctl daemon-reload && systemctl enable vigil.service && systemctl restart vigil.service; fi
  echo "installed: edit $SYSCONFDIR/gateway.yaml, then systemctl restart vigil; logs: journalctl -u vigil"
else
  echo "installed into ${DESTDIR:-/} (files only)"
fi
