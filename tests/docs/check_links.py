#!/usr/bin/env python3
"""Every relative link of the documentation leads somewhere: the file (or folder) exists and,
for `page.md#anchor`, the page has a heading with that anchor (GitHub's rule: lower case,
punctuation but hyphens dropped, spaces as hyphens).

    check_links.py REPO_ROOT

Pages: README.md, docs/*.md, bench/README.md, bench/results/*.md, models/*/README.md.
"""
import glob
import os
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def anchors(path):
    found, in_code = set(), False
    for line in open(path, encoding="utf-8"):
        if line.lstrip().startswith("```"):
            in_code = not in_code
        if in_code or not line.startswith("#"):
            continue
        title = line.lstrip("#").strip().lower()
        found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def main():
    repo = os.path.abspath(sys.argv[1])
    pages = [os.path.join(repo, "README.md")] + sorted(
        glob.glob(os.path.join(repo, "docs", "*.md")) + glob.glob(os.path.join(repo, "bench", "README.md")) +
        glob.glob(os.path.join(repo, "bench", "results", "*.md")) +
        glob.glob(os.path.join(repo, "models", "*", "README.md")))
    failures, n_links = [], 0
    for page in pages:
        in_code = False
        for number, line in enumerate(open(page, encoding="utf-8"), 1):
            if line.lstrip().startswith("```"):
                in_code = not in_code
            if in_code:
                continue
            for target in LINK.findall(line):
                if re.match(r"[a-z]+://", target) or target.startswith("mailto:"):
                    continue
                n_links += 1
                file_part, _, anchor = target.partition("#")
                resolved = os.path.normpath(os.path.join(os.path.dirname(page), file_part)) if file_part else page
                where = f"{os.path.relpath(page, repo)}:{number}"
                if not os.path.exists(resolved):
                    failures.append(f"{where}: the link ({target}) leads to no file")
                elif anchor and (not resolved.endswith(".md") or anchor not in anchors(resolved)):
                    failures.append(f"{where}: the link ({target}): {os.path.relpath(resolved, repo)} has no heading "
                                    f"#{anchor}")
    for failure in failures:
        print("FAIL:", failure)
    print(f"{len(pages)} pages, {n_links} relative links: {len(failures)} broken")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
