#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The layout's rules (docs/DESIGN.md "Architecture"), checked on the sources:

- every #include of ours between folders goes down the layers below, never up
  or sideways, so no two folders include each other (no circle);
- the preloaded agent (recorder/agent/) includes nothing of ours;
- no leaf folder holds more than 20% of the product's lines.

Usage: check_layers.py SOURCE_ROOT"""
import os
import re
import sys

# Lower numbers are lower layers; a folder may include only strictly lower
# ones (and itself).
LAYERS = {
    "common": 0,
    "recorder/agent": 0,
    "simulator/model": 1,
    "viz": 1,
    "recorder": 1,
    "simulator/symbols": 2,
    "simulator/replay": 2,
    "simulator/ctf": 3,
    "ecp": 3,
    "simulator/trace": 4,
    "answers": 4,
    "cli": 5,
}
PRODUCT = sorted(LAYERS)
MAX_SHARE = 0.20


def main():
    root = sys.argv[1]
    problems, lines, checked = [], {}, 0
    for folder in PRODUCT:
        path = os.path.join(root, folder)
        for name in sorted(os.listdir(path)):
            if not name.endswith((".c", ".h")):
                continue
            text = open(os.path.join(path, name), errors="replace").read()
            lines[folder] = lines.get(folder, 0) + text.count("\n")
            for inc in re.findall(r'^#include "([^"]+)"', text, re.M):
                target = os.path.dirname(inc)
                if not target or target == folder or not os.path.exists(os.path.join(root, inc)):
                    continue
                checked += 1
                if folder == "recorder/agent":
                    problems.append(f"{folder}/{name}: the agent includes {inc}")
                elif target not in LAYERS:
                    problems.append(f"{folder}/{name}: {inc} is in no known layer")
                elif LAYERS[target] >= LAYERS[folder]:
                    problems.append(f"{folder}/{name}: includes {inc}, a layer not below "
                                    f"{folder}'s")
    total = sum(lines.values())
    for folder, n in sorted(lines.items()):
        if n > MAX_SHARE * total:
            problems.append(f"{folder}/ holds {100.0 * n / total:.1f}% of the lines "
                            f"(more than {100 * MAX_SHARE:.0f}%): split it by job")
    print(f"layers: {checked} includes between folders checked, {len(lines)} folders, "
          f"largest {max(lines, key=lines.get)}/ at "
          f"{100.0 * max(lines.values()) / total:.1f}%")
    for p in problems:
        print("FAIL:", p)
    if checked < 100:
        print("FAIL: fewer includes than expected; is SOURCE_ROOT right?")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
