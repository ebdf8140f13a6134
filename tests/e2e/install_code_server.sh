#!/usr/bin/env bash
# Install code-server (VS Code in a browser) from npm into a cache folder outside the repo,
# on a machine whose only network is the npm registry, PyPI and Debian.
#
#   bash tests/e2e/install_code_server.sh          # install (or reuse) and print the binary path
#
# Idempotent: when $PREFIX/bin/code-server already answers `--version`, nothing is done.
# Environment:
#   CODE_SERVER_VERSION   default 4.100.3 (VS Code 1.100; the 4.100.x line is the last one
#                         whose `engines.node` is 20, the node on this machine)
#   HOLODECK_E2E_CACHE    default ~/.cache/holodeck-e2e
#   SKIP_APT=1            don't apt-get install the build dependencies (install them yourself)
#
# The last line printed on stdout is the absolute path of the code-server binary; everything
# else goes to stderr and to $HOLODECK_E2E_CACHE/install-code-server-<version>.log.
#
# What the steps work around (each one failed without it here):
#  1. code-server's postinstall runs `npm install --omit=dev` inside lib/vscode, which compiles
#     native modules (node-pty, @parcel/watcher, @vscode/spdlog, kerberos, native-watchdog …)
#     with node-gyp: that needs a C/C++ toolchain and the dev headers below (Debian packages).
#  2. node-gyp downloads node's headers from nodejs.org unless told where they are: Debian's
#     nodejs ships them in /usr/include/node, so npm_config_nodedir=/usr.
#  3. As root, code-server's postinstall refuses to run unless npm_config_unsafe_perm=true.
#  4. @vscode/ripgrep's postinstall downloads a prebuilt `rg` from GitHub (unreachable). Its
#     lib/download.js first looks for the release archive in
#     $TMPDIR/vscode-ripgrep-cache-<package version>/ripgrep-<VERSION>-<target>.tar.gz and,
#     when that file exists, only untars it (`tar xvf`) into its bin/ folder. So we point
#     TMPDIR at a private folder and put there a tar.gz holding Debian's /usr/bin/rg under
#     exactly that name. <package version> is read from lib/vscode/npm-shrinkwrap.json of the
#     code-server tarball, <VERSION> from the `const VERSION = '…'` line of that
#     @vscode/ripgrep's lib/postinstall.js (fetched with `npm pack`).
#  5. A *local* install (npm install --prefix DIR), not `npm install -g`: under -g npm passes
#     npm_config_global=true to the postinstall, and the nested `npm install` in lib/vscode
#     then ignores its npm-shrinkwrap.json and fails (ENOTEMPTY / TAR_ENTRY_ERROR).
#  6. We install into a staging folder and move it into place only when `--version` works, so
#     an interrupted install is never mistaken for a finished one.
set -euo pipefail

VERSION="${CODE_SERVER_VERSION:-4.100.3}"
CACHE="${HOLODECK_E2E_CACHE:-$HOME/.cache/holodeck-e2e}"
PREFIX="$CACHE/code-server-$VERSION"
BIN="$PREFIX/node_modules/.bin/code-server"
LOG="$CACHE/install-code-server-$VERSION.log"

mkdir -p "$CACHE"
# code-server writes a default config.yaml (with a password) on first run: keep it in the cache
export XDG_CONFIG_HOME="$CACHE/xdg-config"
log() { echo "[install_code_server] $*" | tee -a "$LOG" >&2; }

if [ -x "$BIN" ] && "$BIN" --version >/dev/null 2>&1; then
  log "code-server $VERSION already installed: $BIN (skipping)"
  echo "$BIN"
  exit 0
fi

start=$(date +%s)
: >"$LOG"
log "installing code-server $VERSION into $PREFIX (log: $LOG)"

# --- 1. Debian packages: toolchain + headers for the native modules, ripgrep, chromium -----
APT_PKGS=(build-essential pkg-config python3 libkrb5-dev libx11-dev libxkbfile-dev
          libsecret-1-dev ripgrep chromium)
missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "${SKIP_APT:-0}" = 1 ] || [ "$(id -u)" != 0 ]; then
    log "missing Debian packages: ${missing[*]} (install them: apt-get install ${missing[*]})"
    exit 1
  fi
  log "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -q "${missing[@]}" >>"$LOG" 2>&1; then
    apt-get update -q >>"$LOG" 2>&1
    apt-get install -y -q "${missing[@]}" >>"$LOG" 2>&1
  fi
fi
command -v rg >/dev/null || { log "ripgrep (rg) not found"; exit 1; }

# --- 2. the code-server tarball (cached) ------------------------------------------------------
TARBALLS="$CACHE/tarballs"
mkdir -p "$TARBALLS"
CS_TGZ="$TARBALLS/code-server-$VERSION.tgz"
if [ ! -s "$CS_TGZ" ]; then
  log "npm pack code-server@$VERSION"
  (cd "$TARBALLS" && npm pack "code-server@$VERSION" --silent >>"$LOG" 2>&1)
fi

# --- 3. seed @vscode/ripgrep's download cache with Debian's rg --------------------------------
RG_PKG_VERSION=$(tar -xzOf "$CS_TGZ" package/lib/vscode/npm-shrinkwrap.json |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{
    const p=JSON.parse(s).packages["node_modules/@vscode/ripgrep"];
    if(!p) process.exit(2); console.log(p.version)})')
RG_TGZ="$TARBALLS/vscode-ripgrep-$RG_PKG_VERSION.tgz"
if [ ! -s "$RG_TGZ" ]; then
  log "npm pack @vscode/ripgrep@$RG_PKG_VERSION (to read its release VERSION)"
  (cd "$TARBALLS" && npm pack "@vscode/ripgrep@$RG_PKG_VERSION" --silent >>"$LOG" 2>&1)
fi
RG_RELEASE=$(tar -xzOf "$RG_TGZ" package/lib/postinstall.js |
  sed -n "s/^const VERSION = '\([^']*\)'.*/\1/p")
case "$(node -p process.arch)" in
  x64) RG_TARGET=x86_64-unknown-linux-musl ;;
  arm64) RG_TARGET=aarch64-unknown-linux-musl ;;
  *) log "unsupported arch $(node -p process.arch)"; exit 1 ;;
esac
[ -n "$RG_RELEASE" ] || { log "could not read VERSION from @vscode/ripgrep $RG_PKG_VERSION"; exit 1; }
export TMPDIR="$CACHE/tmp"
RG_CACHE_DIR="$TMPDIR/vscode-ripgrep-cache-$RG_PKG_VERSION"
RG_ARCHIVE="$RG_CACHE_DIR/ripgrep-$RG_RELEASE-$RG_TARGET.tar.gz"
mkdir -p "$RG_CACHE_DIR"
if [ ! -s "$RG_ARCHIVE" ]; then
  stage=$(mktemp -d)
  cp "$(command -v rg)" "$stage/rg"
  tar -czf "$RG_ARCHIVE" -C "$stage" rg
  rm -rf "$stage"
fi
log "seeded $RG_ARCHIVE from $(command -v rg)"

# --- 4. npm install -g into a staging prefix ---------------------------------------------------
export npm_config_unsafe_perm=true npm_config_yes=true npm_config_fund=false \
       npm_config_audit=false npm_config_update_notifier=false
if [ -f /usr/include/node/node_version.h ]; then
  export npm_config_nodedir=/usr
fi
STAGE="$PREFIX.partial"
rm -rf "$STAGE"
mkdir -p "$STAGE"
echo '{"private": true}' >"$STAGE/package.json"
log "npm install --prefix $STAGE $CS_TGZ (compiles native modules: several minutes on 2 CPUs)"
if ! npm install --prefix "$STAGE" --no-save "$CS_TGZ" >>"$LOG" 2>&1; then
  log "npm install failed; last lines of $LOG:"
  tail -40 "$LOG" >&2
  exit 1
fi
if ! "$STAGE/node_modules/.bin/code-server" --version >>"$LOG" 2>&1; then
  log "installed code-server does not run; see $LOG"
  exit 1
fi
rm -rf "$PREFIX"
mv "$STAGE" "$PREFIX"
log "installed $("$BIN" --version | head -1) in $(( $(date +%s) - start )) s"
echo "$BIN"
