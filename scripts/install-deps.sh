#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what ecp needs to build, test and record, from Debian's packages.
# Run as root (or with sudo available).
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
	build-essential pkg-config meson ninja-build python3 \
	liblttng-ust-dev lttng-tools liblttng-ctl-dev \
	babeltrace2 libbabeltrace2-dev libelf-dev libdw-dev \
	libcmocka-dev util-linux passwd procps man-db \
	chromium fonts-dejavu-core valgrind clang libclang-rt-14-dev libomp-dev clang-format \
	pigz zstd \
	>/dev/null
