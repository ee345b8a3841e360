#!/usr/bin/env python3
"""Checks that every code excerpt in README.md's "Using it ..." sections is
still a verbatim part of the example file it names ("From
[`examples-c/minimal.c`](...)"). make run-examples builds and runs those files,
so the README shows tested code. Prints what no longer matches."""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
readme = (root / "README.md").read_text()
problems, checked = [], 0
for section in re.split(r"^## ", readme, flags=re.M):
    if not section.startswith("Using it"):
        continue
    title, source = section.splitlines()[0], None
    for match in re.finditer(r"From\s+\[`([^`]+)`\]|^```\w*\n(.*?)^```", section, re.M | re.S):
        if match.group(1):
            source = match.group(1)
            continue
        checked += 1
        if source is None:
            problems.append(f"'## {title}': a code block before any 'From [`file`]'")
        elif match.group(2) not in (root / source).read_text():
            first = match.group(2).strip().splitlines()[0]
            problems.append(f"'## {title}': the excerpt starting '{first}' is not in {source}")
if problems or checked == 0:
    print("check-readme: README.md excerpts differ from the examples:" if problems
          else "check-readme: no excerpts found in the 'Using it' sections")
    print("\n".join("  " + p for p in problems))
    sys.exit(1)
print(f"check-readme: {checked} excerpts match their examples")
