#!/bin/sh
# Installs iomark's release build for this machine:
#   curl -fsSL https://github.com/iomark/iomark/releases/latest/download/install.sh | sh
# It picks the build from the userland's architecture, downloads it, checks its SHA-256 against
# the release's SHA256SUMS and installs the binary in /usr/local/bin as root, else in
# ~/.local/bin. It never asks for sudo. IOMARK_DOWNLOAD_URL: where the release's files are;
# IOMARK_INSTALL_DIR: where the binary goes.
set -eu

home=https://github.com/iomark/iomark
url=${IOMARK_DOWNLOAD_URL:-$home/releases/latest/download}
url=${url%/}
fail() { echo "install.sh: $*" >&2; exit 1; }

# The userland decides, not the kernel: a Pi 4 may run 32-bit Raspberry Pi OS on a 64-bit
# kernel (uname -m says aarch64, its programs are armhf). ARMv6 (Pi Zero and 1) has a build of
# its own: an ARMv7 binary stops there on an illegal instruction.
[ "$(uname -s)" = Linux ] || fail "iomark runs on Linux only, not $(uname -s)"
machine=$(uname -m)
userland=$(dpkg --print-architecture 2>/dev/null || true)
if [ -z "$userland" ]; then
    case "$machine-$(getconf LONG_BIT)" in
        x86_64-64) userland=amd64 ;;
        aarch64-64 | arm64-64) userland=arm64 ;;
        aarch64-32 | arm64-32 | armv[678]l-32) userland=armhf ;;
    esac
fi
case "$userland-$machine" in
    amd64-x86_64) target=x86_64-unknown-linux-musl ;;
    arm64-aarch64 | arm64-arm64) target=aarch64-unknown-linux-musl ;;
    armhf-armv6l) target=arm-unknown-linux-musleabihf ;;
    armhf-armv7l | armhf-armv8l | armhf-aarch64 | armhf-arm64) target=armv7-unknown-linux-gnueabihf ;;
    *) fail "no iomark build for this machine (${userland:-unknown} userland on $machine); build it from source: $home" ;;
esac

if command -v curl >/dev/null; then
    get() { curl -fsL --retry 2 -o "$2" "$url/$1"; }
elif command -v wget >/dev/null; then
    get() { wget -q -O "$2" "$url/$1"; }
else
    fail "neither curl nor wget is installed; install one of them"
fi
if command -v sha256sum >/dev/null; then
    sha256() { sha256sum "$1" | cut -d ' ' -f 1; }
elif command -v shasum >/dev/null; then
    sha256() { shasum -a 256 "$1" | cut -d ' ' -f 1; }
else
    fail "neither sha256sum nor shasum is installed, so the download cannot be checked"
fi

work=$(mktemp -d)
partial=
trap 'rm -rf "$work"; [ -z "$partial" ] || rm -f "$partial"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
get SHA256SUMS "$work/SHA256SUMS" || fail "cannot download $url/SHA256SUMS"
line=$(grep -m 1 "^[0-9a-f]\{64\}  iomark-[0-9A-Za-z.+-]*-$target\.tar\.gz\$" "$work/SHA256SUMS") ||
    fail "the release at $url has no build for $target"
sum=${line%% *}
name=${line##* }
echo "install.sh: downloading $name"
get "$name" "$work/$name" || fail "cannot download $url/$name"
[ "$(sha256 "$work/$name")" = "$sum" ] || fail "$name does not match its SHA-256 in SHA256SUMS: nothing installed"
tar -xzf "$work/$name" -C "$work" || fail "$name is not a readable archive: nothing installed"
binary=$work/${name%.tar.gz}/iomark
[ -f "$binary" ] || fail "$name holds no iomark binary: nothing installed"

if [ -n "${IOMARK_INSTALL_DIR:-}" ]; then
    dir=$IOMARK_INSTALL_DIR
elif [ "$(id -u)" -eq 0 ]; then
    dir=/usr/local/bin
else
    dir=$HOME/.local/bin
fi
dest=$dir/iomark
# Only a regular file (an earlier iomark) is replaced, never a link or anything else.
if [ -L "$dest" ] || { [ -e "$dest" ] && [ ! -f "$dest" ]; }; then
    fail "$dest exists and is not a regular file: nothing installed"
fi
mkdir -p "$dir" || fail "cannot create $dir"
partial=$dir/.iomark.$$
if ! { cp "$binary" "$partial" && chmod 755 "$partial" && mv -f "$partial" "$dest"; }; then
    fail "cannot write $dest"
fi
partial=
version=$("$dest" --version) || fail "$dest is installed but does not run on this machine"
echo "install.sh: installed $version as $dest"
case ":$PATH:" in
    *":$dir:"*) ;;
    *) echo "install.sh: $dir is not on your PATH; add it with:"
       echo "    echo 'export PATH=\"$dir:\$PATH\"' >> ~/.profile && . ~/.profile" ;;
esac
