#!/bin/sh
# Installs the rkb binary from a GitHub release.
#
#   curl -fsSL https://github.com/rkb-dev/rkb/releases/latest/download/install.sh | sh
#   curl -fsSL https://github.com/rkb-dev/rkb/releases/latest/download/install.sh | sh -s -- v0.1.0
#
# Environment:
#   RKB_VERSION        release tag to install (default: the latest release; an argument wins)
#   RKB_INSTALL_DIR    where to put rkb (default: ~/.local/bin)
#   RKB_REPO           GitHub owner/name to download from (default: rkb-dev/rkb)
#   RKB_DOWNLOAD_BASE  releases URL (default: https://github.com/$RKB_REPO/releases); tests point it
#                      at a local server, mirrors at their own copy
#
# Plain POSIX sh so it runs under dash, busybox and macOS sh alike.
set -eu

say() { printf '%s\n' "$*"; }
die() {
	printf 'rkb install.sh: error: %s\n' "$*" >&2
	exit 1
}

version=${1:-${RKB_VERSION:-latest}}
install_dir=${RKB_INSTALL_DIR:-$HOME/.local/bin}
base=${RKB_DOWNLOAD_BASE:-https://github.com/${RKB_REPO:-rkb-dev/rkb}/releases}

# --- which binary: the names are the ones scripts/release.ts writes --------------------------
os=$(uname -s)
arch=$(uname -m)
case $os in
Linux) os=linux ;;
Darwin) os=darwin ;;
MINGW* | MSYS* | CYGWIN*) os=windows ;;
*) die "no rkb release for the operating system '$os' (there are builds for Linux, macOS and Windows)" ;;
esac
case $arch in
x86_64 | amd64) arch=x64 ;;
aarch64 | arm64) arch=arm64 ;;
*) die "no rkb release for the processor '$arch' (there are builds for x86-64 and arm64)" ;;
esac
# A shell under Rosetta reports x86_64 on Apple silicon; the native build is the better one.
if [ "$os-$arch" = darwin-x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
	arch=arm64
fi
exe=
[ "$os" = windows ] && exe=.exe
[ "$os-$arch" = windows-arm64 ] && die "no rkb release for Windows on arm64 (there is one for Windows on x86-64)"
asset="rkb-$os-$arch$exe"

case $version in
latest) url="$base/latest/download" ;;
v*) url="$base/download/$version" ;;
*) url="$base/download/v$version" ;; # accept "0.1.0" as well as "v0.1.0"
esac

# --- tools: whichever downloader and hasher this machine has ---------------------------------
if command -v curl >/dev/null 2>&1; then
	fetch() { curl -fsSL --retry 2 -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
	fetch() { wget -q -O "$2" "$1"; }
else
	die "neither curl nor wget is installed; install one of them and rerun"
fi
if command -v sha256sum >/dev/null 2>&1; then
	sha256() { sha256sum <"$1" | cut -d ' ' -f 1; }
elif command -v shasum >/dev/null 2>&1; then
	sha256() { shasum -a 256 <"$1" | cut -d ' ' -f 1; }
else
	die "neither sha256sum nor shasum is installed, so the download cannot be verified; install one and rerun"
fi

# --- download into a temporary folder; nothing touches the install dir until it is verified ---
tmp=$(mktemp -d 2>/dev/null || mktemp -d -t rkb)
staged=
cleanup() {
	rm -rf "$tmp"
	[ -z "$staged" ] || rm -f "$staged"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

say "Downloading $asset ($version) from $url"
fetch "$url/$asset" "$tmp/$asset" || die "could not download $url/$asset (is '$version' a published release?)"
fetch "$url/SHA256SUMS" "$tmp/SHA256SUMS" || die "could not download $url/SHA256SUMS"

# SHA256SUMS lines are "<hex>  <name>" (or "<hex> *<name>" from a binary-mode hasher).
want=$(awk -v f="$asset" '$2 == f || $2 == "*" f { print tolower($1); exit }' "$tmp/SHA256SUMS")
[ -n "$want" ] || die "SHA256SUMS has no entry for $asset; nothing was installed"
got=$(sha256 "$tmp/$asset" | tr 'A-F' 'a-f')
if [ "$got" != "$want" ]; then
	die "checksum mismatch for $asset: SHA256SUMS says $want but the download is $got. The file is corrupt or was tampered with; nothing was installed. Rerun to try again."
fi
chmod 755 "$tmp/$asset"
if ! version_line=$("$tmp/$asset" --version 2>&1); then
	die "the downloaded $asset does not run on this machine ($version_line); nothing was installed"
fi

# --- install: copy next to the target, then rename, so the target is never half-written -------
mkdir -p "$install_dir" || die "cannot create $install_dir (set RKB_INSTALL_DIR to a folder you can write)"
target="$install_dir/rkb$exe"
staged="$install_dir/.rkb$exe.$$.tmp"
cp "$tmp/$asset" "$staged" || die "cannot write to $install_dir (set RKB_INSTALL_DIR to a folder you can write)"
chmod 755 "$staged"
mv -f "$staged" "$target"
staged=
say "Installed $version_line to $target"

# --- next steps ------------------------------------------------------------------------------
case ":$PATH:" in
*":$install_dir:"*) rkb=rkb ;;
*)
	rkb=$target
	case ${SHELL:-} in
	*/zsh) rc="~/.zshrc" ;;
	*/bash) rc="~/.bashrc" ;;
	*) rc="your shell's startup file" ;;
	esac
	say ""
	say "$install_dir is not on your PATH. Add this line to $rc, then open a new terminal:"
	say "  export PATH=\"$install_dir:\$PATH\""
	;;
esac

# Offer the agent extensions. Ask only when a person is at a terminal; a piped or CI run just prints.
agents=
for agent in pi omp; do
	if [ -d "$HOME/.$agent" ] || command -v "$agent" >/dev/null 2>&1; then agents="$agents $agent"; fi
done
say ""
if [ -t 0 ] && [ -n "$agents" ]; then
	for agent in $agents; do
		printf 'Install the rkb extension for %s now (rkb install %s)? [y/N] ' "$agent" "$agent"
		read -r answer || answer=
		case $answer in
		y | Y | yes | YES) "$target" install "$agent" || say "rkb install $agent did not finish; rerun it later." ;;
		*) say "Skipped; run \`$rkb install $agent\` when you want it." ;;
		esac
	done
else
	say "Next, connect rkb to your coding agent:"
	say "  $rkb install pi     # for pi"
	say "  $rkb install omp    # for omp"
fi
