#!/usr/bin/env python3
"""Checks what README.md, CHANGELOG.md and docs/*.md promise (docs/pending/ aside):

- Excerpts. A code block introduced by a paragraph with "From [`name`](path)" must
  be a verbatim part of the file the link names, and so must the blocks that
  follow it with nothing but blank lines between. A fenced block with a language
  tag (```c, ```python) must be such an excerpt: code the docs show is code that
  make test builds and runs. Untagged fences (diagrams) and indented blocks
  (commands, output) are free text.
- Links. Every link to a path in the repository resolves, and every #anchor names
  a heading of the page it points to (GitHub's heading slugs).

Prints each problem and exits 1 when there is one."""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
# Files other branches bring. A link to one of these is reported, not failed, until
# the file is in the tree; the integrator removes each entry as its file lands.
EXPECTED_LATER = {
}

MARKER = re.compile(r"From\s+\[`[^`]+`\]\(([^)\s]+)\)")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```(\S*)\s*$")


def pages():
    yield root / "README.md"
    yield root / "CHANGELOG.md"
    for page in sorted((root / "docs").rglob("*.md")):
        if "pending" not in page.relative_to(root / "docs").parts:
            yield page


def slug(heading):
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page):
    seen, found, fenced = {}, set(), False
    for line in page.read_text().splitlines():
        if FENCE.match(line):
            fenced = not fenced
        match = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def blocks(page):
    """(line number, language, code, source link or None) for each fenced block,
    and (line number, text) for each line outside them."""
    lines = page.read_text().splitlines(keepends=True)
    source, paragraph, code_blocks, text_lines = None, [], [], []
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = FENCE.match(line)
        if fence:
            if paragraph:
                markers = MARKER.findall(" ".join(paragraph))
                source = markers[-1] if markers else None
                paragraph = []
            start, i = i + 1, i + 1
            while i < len(lines) and not lines[i].startswith("```"):
                i += 1
            code_blocks.append((start, fence.group(1), "".join(lines[start:i]), source))
            i += 1
            continue
        line = re.sub(r"``.*?``", "", line)  # code spans quoting the syntax itself
        text_lines.append((i + 1, line))
        if line.startswith("#"):
            source, paragraph = None, []
        elif line.strip():
            paragraph.append(line.strip())
        elif paragraph:
            markers = MARKER.findall(" ".join(paragraph))
            source = markers[-1] if markers else None
            paragraph = []
        i += 1
    return code_blocks, text_lines


problems, excerpts, links, waiting = [], 0, 0, set()


def resolve(page, target):
    """The repository path a link names, or None for links outside the repository."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target):
        return None
    path, _, anchor = target.partition("#")
    resolved = (page.parent / path).resolve() if path else page
    return resolved, anchor


for page in pages():
    name = page.relative_to(root)
    code_blocks, text_lines = blocks(page)
    for line, language, code, source in code_blocks:
        if source is None:
            if language:
                problems.append(f"{name}:{line}: a ```{language} block without a 'From [`file`](path)' before it")
            continue
        excerpts += 1
        file, _ = resolve(page, source)
        first = code.strip().splitlines()[0] if code.strip() else "(empty)"
        if not file.is_file():
            problems.append(f"{name}:{line}: the excerpt's file {source} does not exist")
        elif code not in file.read_text():
            problems.append(f"{name}:{line}: the excerpt starting '{first}' is not in {source}")
    for line, text in text_lines:
        for target in LINK.findall(text):
            found = resolve(page, target)
            if found is None:
                continue
            links += 1
            file, anchor = found
            try:
                relative = file.relative_to(root).as_posix()
            except ValueError:
                problems.append(f"{name}:{line}: {target} points outside the repository")
                continue
            if not file.exists():
                if relative in EXPECTED_LATER:
                    waiting.add(relative)
                else:
                    problems.append(f"{name}:{line}: {target}: no such file")
            elif anchor and file.suffix == ".md" and anchor not in anchors(file):
                problems.append(f"{name}:{line}: {target}: no heading '#{anchor}' in {relative}")

for path in sorted(waiting):
    print(f"check-docs: not in the tree yet: {path} ({EXPECTED_LATER[path]})")
if problems or excerpts == 0:
    print("check-docs: the docs promise what the tree does not hold:" if problems
          else "check-docs: no excerpts found")
    print("\n".join("  " + p for p in problems))
    sys.exit(1)
print(f"check-docs: {excerpts} excerpts match their files, {links} links resolve")
