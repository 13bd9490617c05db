#!/usr/bin/env python3
"""Fails when the tracked tree tells the story of its own making instead of the product.

The project's docs, comments, scripts and test names describe what parsgd is and does. How it was
built (work sessions, the machines it was built on, issue numbers, dates of work, commit ids)
belongs in git log. This check reads every tracked text file: Markdown and other prose whole,
source files only in their comments (after // or #, and inside /* */ and Python docstrings are
read whole as text lines) and their test names, and prints each line that matches, as
path:line: text. Exit status 1 when any line matches.

    scripts/check_product_words.py [REPO]     (default: the repository holding this script)
"""
import pathlib
import re
import subprocess
import sys

# Each pattern with the reason it is refused (printed with a hit).
PATTERNS = [
    (re.compile(r"\b(this|last|next|previous|earlier|later|one|a|each)\s+session\b", re.I),
     "a work session"),
    (re.compile(r"\bsessions?\s+\d+", re.I), "a numbered work session"),
    (re.compile(r"\bdev(elopment)?\s+(VM|machine|box)\b", re.I), "the machine it was built on"),
    (re.compile(r"\bVMs?\b"), "the machine it was built on (name the CPU model instead)"),
    (re.compile(r"\bissues?\s+#?\d+\b", re.I), "an issue number"),
    (re.compile(r"(?<![\w/.])#\d{2,}\b"), "an issue or pull-request number"),
    (re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b"), "a date of work"),
    (re.compile(r"(?<![\w-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}(?![\w-])"),
     "a commit id"),
]

# Files that are data, generated or third-party text rather than docs or code.
SKIP_SUFFIXES = {
    ".svg", ".png", ".jpg", ".gz", ".bin", ".svm", ".csv", ".json", ".jsonl", ".dat", ".idx",
    ".txt", ".ckpt", ".model",
}
SKIP_PARTS = {"fixtures"}
PROSE_SUFFIXES = {".md", ".rst"}
HASH_COMMENT_SUFFIXES = {".py", ".sh", ".cmake", ".toml", ".cfg"}
SLASH_COMMENT_SUFFIXES = {".cpp", ".hpp", ".h", ".cc", ".c"}
HASH_COMMENT_NAMES = {"CMakeLists.txt", "run", "before-stop"}

TEST_NAME = re.compile(r"\b(TEST|TEST_F|TEST_P|INSTANTIATE_TEST_SUITE_P)\s*\(([^)]*)\)")
PY_TEST_NAME = re.compile(r"^\s*def\s+(test_\w+)")


def tracked_files(repo: pathlib.Path):
    """The files git tracks; outside a git checkout, every file but build trees'."""
    try:
        out = subprocess.run(["git", "-C", str(repo), "ls-files", "-z"], check=True,
                             capture_output=True).stdout.decode()
        return [repo / name for name in out.split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        return [p for p in repo.rglob("*")
                if p.is_file() and not any(part.startswith(("build", ".")) for part in
                                           p.relative_to(repo).parts)]


def comment_text(path: pathlib.Path, lines):
    """The parts of each line that a reader reads as prose: comments, docstrings, test names."""
    suffix = path.suffix
    slash = suffix in SLASH_COMMENT_SUFFIXES
    hash_ = suffix in HASH_COMMENT_SUFFIXES or path.name in HASH_COMMENT_NAMES
    if not slash and not hash_:
        # An executable script without a suffix: read its comments if it starts with a shebang.
        hash_ = bool(lines) and lines[0].startswith("#!")
    in_block = False
    in_doc = False
    for number, line in enumerate(lines, 1):
        parts = []
        if slash:
            rest = line
            if in_block:
                end = rest.find("*/")
                parts.append(rest if end < 0 else rest[:end])
                in_block = end < 0
                rest = "" if end < 0 else rest[end + 2:]
            start = rest.find("/*")
            if start >= 0 and "*/" not in rest[start:]:
                parts.append(rest[start + 2:])
                in_block = True
                rest = rest[:start]
            at = rest.find("//")
            if at >= 0:
                parts.append(rest[at + 2:])
            for match in TEST_NAME.finditer(line):
                parts.append(match.group(2))
        if hash_:
            stripped = line.strip()
            if suffix == ".py" and (stripped.startswith('"""') or in_doc):
                parts.append(line)
                quotes = stripped.count('"""')
                if in_doc and quotes >= 1:
                    in_doc = False
                elif not in_doc and quotes == 1:
                    in_doc = True
            else:
                at = line.find("#")
                if at >= 0:
                    parts.append(line[at + 1:])
            match = PY_TEST_NAME.match(line)
            if match:
                parts.append(match.group(1).replace("_", " "))
        if parts:
            yield number, " ".join(parts)


def hits(repo: pathlib.Path):
    me = pathlib.Path(__file__).resolve()
    for path in tracked_files(repo):
        if path.resolve() == me or not path.is_file():
            continue
        if path.suffix in SKIP_SUFFIXES and path.name != "CMakeLists.txt":
            continue
        if SKIP_PARTS & set(path.relative_to(repo).parts):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        lines = text.splitlines()
        if path.suffix in PROSE_SUFFIXES:
            readable = enumerate(lines, 1)
        else:
            readable = comment_text(path, lines)
        for number, line in readable:
            for pattern, why in PATTERNS:
                match = pattern.search(line)
                if match:
                    yield path.relative_to(repo), number, why, line.strip()
                    break


def main():
    repo = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent / "..")
    repo = repo.resolve()
    found = list(hits(repo))
    for path, number, why, line in found:
        print(f"{path}:{number}: {why}: {line[:160]}")
    if found:
        print(f"{len(found)} lines tell how parsgd was built, not what it is "
              "(that history belongs in git log)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
