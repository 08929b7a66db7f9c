#!/usr/bin/env bash
# The browser test's tools: Debian's chromium and chromium-driver (apt keeps the two in step) and a
# CJK font for the page. Needs root and apt; elsewhere it says so and the browser test skips.
set -euo pipefail
if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
    echo "browser ok: $(chromium --version 2>/dev/null | head -1)"
    exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "cannot install chromium here (needs root and apt-get); the browser test will be skipped" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null || true
apt-get install -y -qq --no-install-recommends chromium chromium-driver fonts-noto-cjk >/dev/null
echo "browser installed: $(chromium --version 2>/dev/null | head -1)"
